# The mock chat server of `make demo-ws` (a WebSocket script: see the WebSockets article).
# "<" the client receives, ">" the client must send next, "~" a pause, "close" the server closes.
< {"type":"welcome","room":"general","members":["grace"]}
> {"type":"join","name":"ada"}
< {"type":"message","from":"grace","text":"Hi Ada! Did the socket connect?"}
~ 0.2
> {"text":"It did: through libcurl, pinned and logged.","type":"message"}
< {"type":"message","from":"grace","text":"\u001b[31mThis line tried to paint your terminal red\u001b[0m"}
< {"type":"message","from":"grace","text":"Bye for now!"}
close 1000 room closed
