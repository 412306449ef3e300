#!/usr/bin/env bash
#
# Writes the certificates the pinning-rollout tests need beyond the committed test PKI:
#
#   Tests/Servers/pinning_fixtures.sh <output-directory>
#
# Tests/NetworkLayerTests/Support/Servers/PinningFixtures.swift runs it once per test process into
# a temporary directory. Everything is issued under the committed CAs in Certificates/ (which this
# script only reads), so a client trusting Certificates/TestCABundle.pem trusts these servers
# unless a file below says otherwise:
#
#   expiring.pem / expiring.key, expiring-chain.pem
#       localhost/127.0.0.1 leaf under TestIntermediateCA, valid from yesterday until 10 days from
#       now (computed when the script runs); the chain file adds the intermediate.
#   rotated.pem / rotated.key, rotated-chain.pem
#       a routine rotation: a new localhost/127.0.0.1 leaf with a fresh key under the same
#       intermediate. Its pin differs from localhost.pem's; the intermediate's and root's do not.
#   long-ca-01.pem .. long-ca-49.pem, long.pem / long.key, long-chain.pem
#       49 CAs without path-length limits (long-ca-01 signed by TestRootCA, each next one by the
#       one before) and a localhost/127.0.0.1 leaf under long-ca-49. long-chain.pem is the leaf
#       then long-ca-49 .. long-ca-01: a server presenting it sends 50 certificates.
#   malformed-ext.pem / malformed-ext.key, malformed-ext-chain.pem
#       localhost/127.0.0.1 leaf under TestIntermediateCA with one more, non-critical extension
#       (OID 1.3.6.1.4.1.55555.1.1) whose content is not DER at all. The certificate itself is
#       well formed; a parser that skips unknown non-critical extensions accepts it.
#   malformed-san.pem / malformed-san.key, malformed-san-chain.pem
#       leaf (CN=localhost) whose subjectAltName extension (non-critical) holds garbage instead of
#       GeneralNames: a known extension that does not decode. OpenSSL refuses to load it as a
#       server's certificate (Python's ssl and s_server alike), so it serves only as a file a
#       client reads (a pin's certificate, a trust store), not as a server.
#   critical-unknown-ext.pem / critical-unknown-ext.key, critical-unknown-ext-chain.pem
#       localhost/127.0.0.1 leaf with an unknown extension (OID 1.3.6.1.4.1.55555.1.2) marked
#       critical, which RFC 5280 says a verifier must reject.
#   pins.txt
#       "<file> sha256/<base64>" for every certificate file above, as Certificates/pins.txt (the
#       pin of the first certificate of a file: a chain file has its leaf's pin).
#
# Requirements: bash, GNU coreutils (date, base64) and the openssl CLI (OpenSSL 3.0). All keys are EC P-256. Run again,
# it replaces every file it owns with new keys (so new pins): it is idempotent, not reproducible.
#
# THESE KEYS ARE FOR TESTS ONLY.

set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 <output-directory>" >&2; exit 2; }
command -v openssl >/dev/null 2>&1 || { echo "error: openssl not found in PATH" >&2; exit 1; }

CERTS="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../Certificates" && pwd)"
mkdir -p "$1"
OUT="$(cd "$1" && pwd)"
cd "$OUT"

START_DATE=20240101000000Z
END_DATE=21231231235959Z
# The expiring leaf: computed now, so that "expires in 10 days" holds whenever the tests run.
EXPIRING_START="$(date -u -d '1 day ago' +%Y%m%d%H%M%SZ)"
EXPIRING_END="$(date -u -d '10 days' +%Y%m%d%H%M%SZ)"
ORG="NetworkLayer Tests"
LONG_CAS=49

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# A system or user OpenSSL configuration must not change the output.
CNF="$WORK/openssl.cnf"
export OPENSSL_CONF="$CNF"

# Everything this script owns in the output directory, removed first so a rerun starts clean.
rm -f -- expiring.pem expiring.key expiring-chain.pem rotated.pem rotated.key rotated-chain.pem \
  long-ca-*.pem long-ca-*.key long.pem long.key long-chain.pem \
  malformed-ext.pem malformed-ext.key malformed-ext-chain.pem \
  malformed-san.pem malformed-san.key malformed-san-chain.pem \
  critical-unknown-ext.pem critical-unknown-ext.key critical-unknown-ext-chain.pem pins.txt

mkdir -p "$WORK/ca/newcerts"
: > "$WORK/ca/index.txt"
echo "unique_subject = no" > "$WORK/ca/index.txt.attr"
openssl rand -hex 16 | sed 's/^./4/' > "$WORK/ca/serial"

cat > "$CNF" <<EOF
[req]
distinguished_name = req_dn
prompt             = no
string_mask        = utf8only
[req_dn]
CN = placeholder

[v3_long_ca]
basicConstraints       = critical, CA:true
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[v3_leaf_localhost]
basicConstraints       = critical, CA:false
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectAltName         = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[v3_leaf_malformed_ext]
basicConstraints       = critical, CA:false
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectAltName         = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
# Not DER: a tag of 0xFF, then a length running past the end.
1.3.6.1.4.1.55555.1.1  = DER:FF:FF:FF:00:DE:AD:BE:EF

[v3_leaf_malformed_san]
basicConstraints       = critical, CA:false
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectAltName         = DER:30:FF:82:09:6C:6F:63:61
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[v3_leaf_critical_unknown]
basicConstraints       = critical, CA:false
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectAltName         = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
1.3.6.1.4.1.55555.1.2  = critical, DER:05:00

[ca]
default_ca = throwaway_ca
[throwaway_ca]
dir              = $WORK/ca
database         = \$dir/index.txt
new_certs_dir    = \$dir/newcerts
serial           = \$dir/serial
default_md       = sha256
policy           = policy_any
unique_subject   = no
copy_extensions  = none
email_in_dn      = no
[policy_any]
organizationName       = optional
commonName             = supplied
EOF

quiet() {  # run a command, show its output only if it fails
  local out
  if ! out="$("$@" 2>&1)"; then
    printf 'error: command failed: %s\n%s\n' "$*" "$out" >&2
    return 1
  fi
}

# leaf <name> <CN> <extensions-section> <issuer-cert> <issuer-key> [start] [end]
#   writes <name>.key (EC P-256, PKCS#8 PEM) and <name>.pem
leaf() {
  quiet openssl req -config "$CNF" -new -sha256 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -noenc \
    -keyout "$1.key" -subj "/O=$ORG/CN=$2" -out "$WORK/$1.csr"
  quiet openssl ca -config "$CNF" -batch -notext -md sha256 -in "$WORK/$1.csr" -out "$1.pem" \
    -cert "$4" -keyfile "$5" -extfile "$CNF" -extensions "$3" \
    -startdate "${6:-$START_DATE}" -enddate "${7:-$END_DATE}"
  openssl pkey -in "$1.key" -pubout -outform der | openssl dgst -sha256 -binary | base64 > "$WORK/$1.pin"
}

pin() {  # pin <name>  -- sha256/<base64 SPKI SHA-256> of <name>.pem, from the key leaf() kept
  echo "sha256/$(cat "$WORK/$1.pin")"
}

INTERMEDIATE=("$CERTS/TestIntermediateCA.pem" "$CERTS/TestIntermediateCA.key")

leaf expiring localhost v3_leaf_localhost "${INTERMEDIATE[@]}" "$EXPIRING_START" "$EXPIRING_END"
leaf rotated localhost v3_leaf_localhost "${INTERMEDIATE[@]}"
leaf malformed-ext localhost v3_leaf_malformed_ext "${INTERMEDIATE[@]}"
leaf malformed-san localhost v3_leaf_malformed_san "${INTERMEDIATE[@]}"
leaf critical-unknown-ext localhost v3_leaf_critical_unknown "${INTERMEDIATE[@]}"
for name in expiring rotated malformed-ext malformed-san critical-unknown-ext; do
  cat "$name.pem" "$CERTS/TestIntermediateCA.pem" > "$name-chain.pem"
done

# The long chain: each CA's key is kept only while it signs the next certificate.
issuer=("$CERTS/TestRootCA.pem" "$CERTS/TestRootCA.key")
for i in $(seq -w 1 "$LONG_CAS"); do
  leaf "long-ca-$i" "Long Chain CA $i" v3_long_ca "${issuer[@]}"
  mv "long-ca-$i.key" "$WORK/long-ca-$i.key"
  issuer=("long-ca-$i.pem" "$WORK/long-ca-$i.key")
done
leaf long localhost v3_leaf_localhost "${issuer[@]}"
{
  cat long.pem
  for i in $(seq -w "$LONG_CAS" -1 1); do cat "long-ca-$i.pem"; done
} > long-chain.pem

{
  for name in expiring rotated malformed-ext malformed-san critical-unknown-ext long; do
    echo "$name.pem $(pin "$name")"
    echo "$name-chain.pem $(pin "$name")"
  done
  for i in $(seq -w 1 "$LONG_CAS"); do echo "long-ca-$i.pem $(pin "long-ca-$i")"; done
} > pins.txt

# What must hold for the tests to mean anything: the pins are the certificates' own, and the chains
# verify (the long one at OpenSSL's default depth).
[ "$(echo "$(pin rotated)" | cut -d/ -f2-)" = "$(openssl x509 -in rotated-chain.pem -pubkey -noout \
  | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)" ]
quiet openssl verify -CAfile "$CERTS/TestRootCA.pem" -untrusted "$CERTS/TestIntermediateCA.pem" expiring.pem
quiet openssl verify -CAfile "$CERTS/TestRootCA.pem" -untrusted "$CERTS/TestIntermediateCA.pem" rotated.pem
quiet openssl verify -CAfile "$CERTS/TestRootCA.pem" -untrusted long-chain.pem long.pem
[ "$(grep -c 'BEGIN CERTIFICATE' long-chain.pem)" -eq $((LONG_CAS + 1)) ]
