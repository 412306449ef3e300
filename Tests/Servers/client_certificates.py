#!/usr/bin/env python3
"""Makes the certificates of the mutual-TLS tests with trustme (run by the .venv's Python).

    .venv/bin/python client_certificates.py DIRECTORY

Writes into DIRECTORY (created if missing), then prints "OK":

  ca.pem                      the CA the server trusts for clients, and the one its own
                              certificate chains to (clients trust it with a custom CA bundle)
  server.pem, server.key      the server's chain and key, for localhost and 127.0.0.1
  client.pem, client.key      a client certificate (CN=client-a) of that CA, unencrypted PKCS#8 key
  client-pkcs8-encrypted.key  the same key, PKCS#8 encrypted with the password in PASSWORD
  client-traditional-encrypted.key
                              the same key, traditional PEM ("Proc-Type: 4,ENCRYPTED")
  client-combined.pem         client.pem and client.key in one file
  client.p12                  certificate and key as PKCS#12 (AES-256), password PASSWORD
  client-nopass.p12           the same without a password
  client-b.pem, client-b.key  a second client of the same CA (CN=client-b)
  rogue.pem, rogue.key        a client certificate of another CA (CN=rogue), unknown to the server
  other.key                   a key of no certificate here (for a mismatch)
  garbage.pem                 text that holds no certificate or key
  password.txt                PASSWORD
"""

import os
import sys

import trustme
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12

PASSWORD = "correct horse battery staple"


def write(directory, name, data):
    with open(os.path.join(directory, name), "wb") as file:
        file.write(data)


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    ca = trustme.CA(organization_name="NetworkLayer mTLS test CA")
    ca.cert_pem.write_to_path(os.path.join(directory, "ca.pem"))
    server = ca.issue_cert("localhost", "127.0.0.1", common_name="localhost")
    write(directory, "server.pem", b"".join(blob.bytes() for blob in server.cert_chain_pems))
    server.private_key_pem.write_to_path(os.path.join(directory, "server.key"))

    client = ca.issue_cert("client-a@example.com", common_name="client-a")
    certificate = client.cert_chain_pems[0].bytes()
    write(directory, "client.pem", certificate)
    client.private_key_pem.write_to_path(os.path.join(directory, "client.key"))
    key = serialization.load_pem_private_key(client.private_key_pem.bytes(), password=None)
    encryption = serialization.BestAvailableEncryption(PASSWORD.encode())
    write(directory, "client-pkcs8-encrypted.key",
          key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption))
    write(directory, "client-traditional-encrypted.key",
          key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, encryption))
    write(directory, "client-combined.pem", certificate + client.private_key_pem.bytes())
    parsed = x509.load_pem_x509_certificate(certificate)
    aes = (serialization.PrivateFormat.PKCS12.encryption_builder()
           .kdf_rounds(20000)
           .key_cert_algorithm(pkcs12.PBES.PBESv2SHA256AndAES256CBC)
           .hmac_hash(hashes.SHA256())
           .build(PASSWORD.encode()))
    write(directory, "client.p12", pkcs12.serialize_key_and_certificates(b"client-a", key, parsed, None, aes))
    write(directory, "client-nopass.p12",
          pkcs12.serialize_key_and_certificates(b"client-a", key, parsed, None, serialization.NoEncryption()))

    second = ca.issue_cert("client-b@example.com", common_name="client-b")
    write(directory, "client-b.pem", second.cert_chain_pems[0].bytes())
    second.private_key_pem.write_to_path(os.path.join(directory, "client-b.key"))

    rogue_ca = trustme.CA(organization_name="Rogue CA")
    rogue = rogue_ca.issue_cert("rogue@example.com", common_name="rogue")
    write(directory, "rogue.pem", rogue.cert_chain_pems[0].bytes())
    rogue.private_key_pem.write_to_path(os.path.join(directory, "rogue.key"))

    other = ec.generate_private_key(ec.SECP256R1())
    write(directory, "other.key", other.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption()))
    write(directory, "garbage.pem", b"-----BEGIN NOTHING-----\nnot base64 at all\n-----END NOTHING-----\n")
    write(directory, "password.txt", PASSWORD.encode())
    print("OK", flush=True)


if __name__ == "__main__":
    main()
