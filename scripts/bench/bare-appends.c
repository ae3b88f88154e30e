/* bare-appends FILE N SIZE: N appends of SIZE bytes to FILE, each write(2) followed by
 * fsync(2), then prints the microseconds they took: the bound of a scripted `add` line in
 * scripts/bench.sh (SIZE: the bytes one `add` adds to the journal). Built by that script;
 * never committed as a binary. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: bare-appends FILE N SIZE\n"); return 2; }
    int n = atoi(argv[2]);
    size_t size = (size_t)atol(argv[3]);
    char *payload = calloc(size ? size : 1, 1);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (!payload || fd < 0) { perror(argv[1]); return 1; }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < n; i++) {
        if (write(fd, payload, size) != (ssize_t)size || fsync(fd) != 0) { perror(argv[1]); return 1; }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    close(fd);
    unlink(argv[1]);
    printf("%lld\n", (end.tv_sec - start.tv_sec) * 1000000LL + (end.tv_nsec - start.tv_nsec) / 1000);
    return 0;
}
