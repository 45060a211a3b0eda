#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/pemerr.h>
#include <openssl/x509_vfy.h>
#include <openssl/cms.h>

/* Compound macros Swift cannot import, as inline functions. */

/* RFC 2253 one-line names with UTF-8 left as UTF-8 (openssl's `-nameopt RFC2253,-esc_msb`). */
static inline unsigned long gatehouse_name_flags_rfc2253_utf8(void) {
    return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB;
}

/* EVP_PKEY_fromdata's selection for a public key with its domain parameters. */
static inline int gatehouse_evp_pkey_public_key(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

/* OPENSSL_free, a macro that names the caller's file and line. */
static inline void gatehouse_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}
