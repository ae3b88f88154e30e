/* key-derivation JOURNAL PASSWORD-FILE: the key derivation a sign-in to JOURNAL costs, alone:
 * Argon2id (libsodium's crypto_pwhash) with the cost and salt of the journal's first key wrap
 * (docs/journal-format.md), timed; prints its microseconds. The bound that scripts/bench.sh
 * adds to sign-in and one-shot `list` (SPEC §9). Built by that script with
 * `cc -O2 … -lsodium`; never committed as a binary. */
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: key-derivation JOURNAL PASSWORD-FILE\n"); return 2; }
    if (sodium_init() < 0) return 1;
    /* The journal header (60 bytes), then the first frame's header (21 bytes): a key wrap
     * (kind 3) whose payload starts u16 version, u64 opslimit, u64 memlimit, 16-byte salt. */
    unsigned char start[60 + 21 + 34], key[32];
    char password[1024];
    FILE *journal = fopen(argv[1], "rb"), *secret = fopen(argv[2], "r");
    if (!journal || fread(start, 1, sizeof start, journal) != sizeof start || memcmp(start, "GIFTKEEP", 8) != 0 ||
        start[60 + 12] != 3) {
        fprintf(stderr, "key-derivation: %s does not start with a key wrap\n", argv[1]);
        return 1;
    }
    if (!secret || !fgets(password, sizeof password, secret)) { perror(argv[2]); return 1; }
    password[strcspn(password, "\r\n")] = 0;
    const unsigned char *wrap = start + 60 + 21;
    struct timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    if (crypto_pwhash(key, sizeof key, password, strlen(password), wrap + 18, le64(wrap + 2), (size_t)le64(wrap + 10),
                      crypto_pwhash_ALG_ARGON2ID13) != 0) {
        fprintf(stderr, "key-derivation: out of memory\n");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    sodium_memzero(key, sizeof key);
    sodium_memzero(password, sizeof password);
    printf("%lld\n", (end.tv_sec - begin.tv_sec) * 1000000LL +
                         (end.tv_nsec - begin.tv_nsec) / 1000);
    return 0;
}
