#include <openssl/opensslv.h>
#include <openssl/crypto.h>
