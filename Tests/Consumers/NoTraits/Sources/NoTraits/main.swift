import NetworkLayer

print(NetworkLayerInfo.version)
