#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H

/* OpenSSL 3 deprecates the low-level SHA1_Init/Update/Final and SHA_CTX. SRTP keeps them on purpose:
   the HMAC's inner and outer SHA-1 states are computed once per session and copied per packet,
   which EVP_MAC cannot do as cheaply. Suppress the deprecation so the build stays free of warnings. */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

/* Macros and varargs-free wrappers Swift cannot import or call directly. */

/// Reads the GCM tag after EVP_EncryptFinal_ex (EVP_CTRL_AEAD_GET_TAG); 1 on success.
static inline int ccrypto_gcm_get_tag(EVP_CIPHER_CTX *ctx, void *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, length, tag);
}

/// Sets the expected GCM tag before EVP_DecryptFinal_ex (EVP_CTRL_AEAD_SET_TAG); 1 on success.
static inline int ccrypto_gcm_set_tag(EVP_CIPHER_CTX *ctx, const void *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, length, (void *)tag);
}

#endif
