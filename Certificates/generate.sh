#!/usr/bin/env bash
#
# Regenerates every test certificate, key and pin in this directory.
#
#   ./generate.sh            (may be run from any working directory)
#
# Requirements: bash and the `openssl` CLI (written for OpenSSL 3.0, Debian 12).
# Nothing else is used. All output goes next to this script, under fixed
# file names; existing generated files are removed and recreated, so the
# script is idempotent (but every run creates NEW keys, so pins change --
# see README.md).
#
# THESE KEYS ARE FOR TESTS ONLY. NEVER USE THEM IN PRODUCTION.

set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$DIR"

command -v openssl >/dev/null 2>&1 || { echo "error: openssl not found in PATH" >&2; exit 1; }

# Validity of every certificate except expired.pem: a fixed window of ~100
# years. notBefore is deliberately in the past so that a machine whose clock
# is somewhat behind (or a CI runner) never sees "certificate not yet valid".
START_DATE=20240101000000Z
END_DATE=21231231235959Z
# expired.pem
EXPIRED_START=20200101000000Z
EXPIRED_END=20210101000000Z
ORG="NetworkLayer Tests"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Do not let a system/user OpenSSL config change the output. Every command
# that needs a config gets ours explicitly.
CNF="$WORK/openssl.cnf"
export OPENSSL_CONF="$CNF"

# --------------------------------------------------------------------------
# Files this script owns (everything except generate.sh and README.md).
# --------------------------------------------------------------------------
GENERATED=(
  TestRootCA.pem TestRootCA.key TestCABundle.pem
  TestIntermediateCA.pem TestIntermediateCA.key
  localhost.pem localhost.key localhost-chain.pem
  Cert001.der Cert002.crt Cert003.cer Cert004.pem Cert005.certificate
  interceptor.pem interceptor.key interceptor-chain.pem
  unrelated.pem unrelated.key
  expired.pem expired.key expired-chain.pem
  wronghost.pem wronghost.key wronghost-chain.pem
  selfsigned.pem selfsigned.key
  UnknownCA.pem UnknownCA.key unknownca-leaf.pem unknownca-leaf.key unknownca-chain.pem
  garbage.der empty.pem
  pins.txt
)
rm -f -- "${GENERATED[@]}"

# --------------------------------------------------------------------------
# Throwaway OpenSSL configuration: extension profiles + a minimal `openssl ca`
# setup. Every certificate is issued with `openssl ca`, because in OpenSSL 3.0
# neither `openssl x509` nor `openssl req -x509` can set an explicit
# notBefore/notAfter (needed for expired.pem and for the backdated notBefore).
# --------------------------------------------------------------------------
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

[v3_root]
basicConstraints       = critical, CA:true
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash

[v3_intermediate]
basicConstraints       = critical, CA:true, pathlen:0
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

[v3_leaf_wronghost]
basicConstraints       = critical, CA:false
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectAltName         = DNS:wrong.example.com
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[v3_selfsigned_leaf]
basicConstraints       = critical, CA:false
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectAltName         = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier   = hash

[v3_unrelated]
basicConstraints       = critical, CA:false
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectAltName         = DNS:unrelated.invalid
subjectKeyIdentifier   = hash

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

# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------
quiet() {  # run a command, show its output only if it fails
  local out
  if ! out="$("$@" 2>&1)"; then
    printf 'error: command failed: %s\n%s\n' "$*" "$out" >&2
    return 1
  fi
}

newkey() {  # newkey <file>  -- EC P-256 private key, PKCS#8 PEM
  quiet openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
    -pkeyopt ec_param_enc:named_curve -out "$1"
}

csr() {  # csr <key> <CN> <csr-out>
  openssl req -config "$CNF" -new -sha256 -key "$1" -subj "/O=$ORG/CN=$2" -out "$3"
}

# issue <csr> <ca-cert> <ca-key> <extensions-section> <cert-out> [start] [end]
issue() {
  quiet openssl ca -config "$CNF" -batch -notext -md sha256 -in "$1" -out "$5" \
    -cert "$2" -keyfile "$3" -extfile "$CNF" -extensions "$4" \
    -startdate "${6:-$START_DATE}" -enddate "${7:-$END_DATE}"
}

# selfsign <key> <CN> <extensions-section> <cert-out>
selfsign() {
  csr "$1" "$2" "$WORK/selfsign.csr"
  quiet openssl ca -config "$CNF" -batch -notext -md sha256 -selfsign -in "$WORK/selfsign.csr" \
    -out "$4" -keyfile "$1" -extfile "$CNF" -extensions "$3" \
    -startdate "$START_DATE" -enddate "$END_DATE"
}

pin() {  # pin <cert-file> [DER|PEM]  -- prints sha256/<base64 SPKI SHA-256>
  local form="${2:-PEM}"
  echo "sha256/$(openssl x509 -inform "$form" -in "$1" -pubkey -noout \
    | openssl pkey -pubin -outform der \
    | openssl dgst -sha256 -binary \
    | openssl enc -base64)"
}

# --------------------------------------------------------------------------
# 1. Trusted root CA
# --------------------------------------------------------------------------
newkey TestRootCA.key
selfsign TestRootCA.key "Test Root CA" v3_root TestRootCA.pem

# 11. CA bundle used by the tests = just the root
cp TestRootCA.pem TestCABundle.pem

# --------------------------------------------------------------------------
# 2. Intermediate CA (signed by root)
# --------------------------------------------------------------------------
newkey TestIntermediateCA.key
csr TestIntermediateCA.key "Test Intermediate CA" "$WORK/intermediate.csr"
issue "$WORK/intermediate.csr" TestRootCA.pem TestRootCA.key v3_intermediate TestIntermediateCA.pem

# --------------------------------------------------------------------------
# 3. localhost leaf (signed by intermediate) + chain + alternate encodings
# --------------------------------------------------------------------------
newkey localhost.key
csr localhost.key localhost "$WORK/localhost.csr"
issue "$WORK/localhost.csr" TestIntermediateCA.pem TestIntermediateCA.key v3_leaf_localhost localhost.pem
cat localhost.pem TestIntermediateCA.pem > localhost-chain.pem

openssl x509 -in localhost.pem -outform DER -out Cert001.der
openssl x509 -in localhost.pem -outform PEM -out Cert002.crt
openssl x509 -in localhost.pem -outform DER -out Cert003.cer
openssl x509 -in localhost.pem -outform PEM -out Cert004.pem
openssl x509 -in localhost.pem -outform PEM -out Cert005.certificate

# --------------------------------------------------------------------------
# 4. Interceptor: different key, same names, signed directly by the root
# --------------------------------------------------------------------------
newkey interceptor.key
csr interceptor.key localhost "$WORK/interceptor.csr"
issue "$WORK/interceptor.csr" TestRootCA.pem TestRootCA.key v3_leaf_localhost interceptor.pem
cat interceptor.pem TestRootCA.pem > interceptor-chain.pem

# --------------------------------------------------------------------------
# 5. Unrelated self-signed certificate (never served)
# --------------------------------------------------------------------------
newkey unrelated.key
selfsign unrelated.key "Unrelated Certificate" v3_unrelated unrelated.pem

# --------------------------------------------------------------------------
# 6. Expired leaf (signed by intermediate, valid 2020-01-01 .. 2021-01-01)
# --------------------------------------------------------------------------
newkey expired.key
csr expired.key localhost "$WORK/expired.csr"
issue "$WORK/expired.csr" TestIntermediateCA.pem TestIntermediateCA.key v3_leaf_localhost \
  expired.pem "$EXPIRED_START" "$EXPIRED_END"
cat expired.pem TestIntermediateCA.pem > expired-chain.pem

# --------------------------------------------------------------------------
# 7. Wrong host name (wrong.example.com only), signed by intermediate
# --------------------------------------------------------------------------
newkey wronghost.key
csr wronghost.key wrong.example.com "$WORK/wronghost.csr"
issue "$WORK/wronghost.csr" TestIntermediateCA.pem TestIntermediateCA.key v3_leaf_wronghost wronghost.pem
cat wronghost.pem TestIntermediateCA.pem > wronghost-chain.pem

# --------------------------------------------------------------------------
# 8. Self-signed localhost leaf (not CA-issued)
# --------------------------------------------------------------------------
newkey selfsigned.key
selfsign selfsigned.key localhost v3_selfsigned_leaf selfsigned.pem

# --------------------------------------------------------------------------
# 9. Untrusted root CA and a localhost leaf issued by it
# --------------------------------------------------------------------------
newkey UnknownCA.key
selfsign UnknownCA.key "Unknown (Untrusted) Root CA" v3_root UnknownCA.pem
newkey unknownca-leaf.key
csr unknownca-leaf.key localhost "$WORK/unknownca-leaf.csr"
issue "$WORK/unknownca-leaf.csr" UnknownCA.pem UnknownCA.key v3_leaf_localhost unknownca-leaf.pem
cat unknownca-leaf.pem UnknownCA.pem > unknownca-chain.pem

# --------------------------------------------------------------------------
# 10. Not-a-certificate and empty files
# --------------------------------------------------------------------------
cat > garbage.der <<'EOF'
This file is intentionally NOT a certificate.
It is neither valid DER nor valid PEM and exists only so that tests can
check that loading it fails with a sensible error.
EOF
: > empty.pem

# --------------------------------------------------------------------------
# Pins: sha256/<base64(SHA-256(DER SubjectPublicKeyInfo))> of the first
# certificate in each certificate file.
# --------------------------------------------------------------------------
{
  for f in TestRootCA.pem TestCABundle.pem TestIntermediateCA.pem \
           localhost.pem localhost-chain.pem; do
    echo "$f $(pin "$f")"
  done
  echo "Cert001.der $(pin Cert001.der DER)"
  echo "Cert002.crt $(pin Cert002.crt)"
  echo "Cert003.cer $(pin Cert003.cer DER)"
  echo "Cert004.pem $(pin Cert004.pem)"
  echo "Cert005.certificate $(pin Cert005.certificate)"
  for f in interceptor.pem interceptor-chain.pem unrelated.pem \
           expired.pem expired-chain.pem wronghost.pem wronghost-chain.pem \
           selfsigned.pem UnknownCA.pem unknownca-leaf.pem unknownca-chain.pem; do
    echo "$f $(pin "$f")"
  done
} > pins.txt

# Sanity checks (fail the script if the basic trust relationships are wrong).
openssl verify -CAfile TestRootCA.pem -untrusted TestIntermediateCA.pem localhost.pem >/dev/null
openssl verify -CAfile TestRootCA.pem interceptor.pem >/dev/null
openssl verify -CAfile TestRootCA.pem -untrusted TestIntermediateCA.pem wronghost.pem >/dev/null

chmod 644 -- "${GENERATED[@]}"
echo "Generated $(( ${#GENERATED[@]} )) files in $DIR"
