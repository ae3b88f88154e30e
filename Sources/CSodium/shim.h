// The libsodium API as GiftKeeperCrypto sees it. Only GiftKeeperCrypto imports this module.
#ifndef GIFTKEEPER_CSODIUM_SHIM_H
#define GIFTKEEPER_CSODIUM_SHIM_H

#include <sodium.h>

// Constants that libsodium exposes as macros Swift imports poorly.
static inline int gk_pwhash_alg_argon2id13(void) { return crypto_pwhash_ALG_ARGON2ID13; }

#endif
