/* The cryptography a GiftKeeper journal requires, and nothing else: the bound that
 * scripts/bench-black-box.sh holds `export` and `audit` against (docs/performance.md).
 *
 *   crypto-bound JOURNAL PASSWORD-FILE [RUNS]
 *
 * Derives the data key from the password and the first key wrap (Argon2id, untimed), then,
 * RUNS times (default 5), timed: reads the whole journal file, and for every frame checks
 * both keyed BLAKE2b-256 chain hashes (the 8-byte header check over bytes 0..13 and the
 * frame hash over bytes 0..21+L, each keyed with the previous frame's stored hash) against
 * the stored ones, and opens every kind-1 payload with XChaCha20-Poly1305 under the data
 * key with its 60 bytes of additional data (docs/journal-format.md, "The frame binding").
 * Prints the best run: frames, sealed events, payload and plaintext bytes, microseconds of
 * wall time and of CPU time (the second is steadier on a machine others are using).
 * Any frame that does not verify or open is an error (exit 1): the bound does the real work.
 * Built by the script with `cc -O2 … -lsodium`; never committed as a binary. */
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static double now_us(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static void fail(const char *what, uint64_t seq) {
    fprintf(stderr, "crypto-bound: %s at sequence %llu\n", what, (unsigned long long)seq);
    exit(1);
}
static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)n + 1);
    if (!bytes || fread(bytes, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
    fclose(f);
    *size = (size_t)n;
    return bytes;
}
/* binding: purpose(1) ‖ version u16 ‖ journal id(16) ‖ sequence u64 ‖ kind(1) ‖ previous hash(32) */
static void binding(unsigned char ad[60], unsigned char purpose, const unsigned char *header,
                    uint64_t seq, unsigned char kind, const unsigned char *previous) {
    ad[0] = purpose;
    memcpy(ad + 1, header + 8, 2);
    memcpy(ad + 3, header + 12, 16);
    put64(ad + 19, seq);
    ad[27] = kind;
    memcpy(ad + 28, previous, 32);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: crypto-bound JOURNAL PASSWORD-FILE [RUNS]\n"); return 2; }
    if (sodium_init() < 0) return 1;
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    size_t password_size;
    unsigned char *password = read_file(argv[2], &password_size);
    while (password_size > 0 && (password[password_size - 1] == '\n' || password[password_size - 1] == '\r')) password_size--;

    /* The data key, from the first frame (a key wrap), untimed. */
    size_t size;
    unsigned char *file = read_file(argv[1], &size);
    if (size < 60 + 53 || memcmp(file, "GIFTKEEP", 8) != 0) fail("not a journal", 0);
    const unsigned char *wrap = file + 60 + 21;
    if (file[60 + 12] != 3) fail("first frame is not a key wrap", 1);
    unsigned char password_key[32], data_key[32], ad[60 + 66];
    if (crypto_pwhash(password_key, 32, (const char *)password, password_size, wrap + 18, le64(wrap + 2),
                      (size_t)le64(wrap + 10), crypto_pwhash_ALG_ARGON2ID13) != 0)
        fail("key derivation", 1);
    binding(ad, 2, file, 1, 3, file + 28);
    memcpy(ad + 60, wrap, 66);
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(data_key, NULL, NULL, wrap + 66 + 24, 32 + 16, ad, sizeof ad,
                                                   wrap + 66, password_key) != 0)
        fail("wrong password (the data key does not unwrap)", 1);
    free(file);

    unsigned char *plain = malloc(1 << 20);
    double best = 0, best_cpu = 0;
    uint64_t frames = 0, events = 0, payload_bytes = 0, plain_bytes = 0;
    for (int run = 0; run < runs; run++) {
        double start = now_us(CLOCK_MONOTONIC), start_cpu = now_us(CLOCK_PROCESS_CPUTIME_ID);
        file = read_file(argv[1], &size);
        frames = events = payload_bytes = plain_bytes = 0;
        const unsigned char *previous = file + 28;
        unsigned char digest[32];
        size_t offset = 60;
        uint64_t seq = 1;
        while (offset + 53 <= size) {
            const unsigned char *frame = file + offset;
            uint32_t length = le32(frame);
            if (le64(frame + 4) != seq || length > (1u << 20) || offset + 53 + length > size) fail("bad frame", seq);
            crypto_generichash(digest, 32, frame, 13, previous, 32);
            if (sodium_memcmp(digest, frame + 13, 8) != 0) fail("header check", seq);
            crypto_generichash(digest, 32, frame, 21 + length, previous, 32);
            if (sodium_memcmp(digest, frame + 21 + length, 32) != 0) fail("frame hash", seq);
            if (frame[12] == 3 && seq > 1) fail("a second key wrap (the bound reads journals of one key epoch)", seq);
            if (frame[12] == 1) {
                if (length < 40) fail("short payload", seq);
                binding(ad, 1, file, seq, 1, previous);
                if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain, NULL, NULL, frame + 21 + 24, length - 24, ad, 60,
                                                               frame + 21, data_key) != 0)
                    fail("payload does not open", seq);
                events++;
                plain_bytes += length - 40;
            }
            payload_bytes += length;
            previous = frame + 21 + length;
            offset += 53 + length;
            seq++;
            frames++;
        }
        free(file);
        double elapsed = now_us(CLOCK_MONOTONIC) - start, cpu = now_us(CLOCK_PROCESS_CPUTIME_ID) - start_cpu;
        if (run == 0 || elapsed < best) best = elapsed;
        if (run == 0 || cpu < best_cpu) best_cpu = cpu;
    }
    printf("frames %llu events %llu payload_bytes %llu plaintext_bytes %llu us %.0f cpu_us %.0f\n",
           (unsigned long long)frames, (unsigned long long)events, (unsigned long long)payload_bytes,
           (unsigned long long)plain_bytes, best, best_cpu);
    sodium_memzero(data_key, 32);
    sodium_memzero(password_key, 32);
    return 0;
}
