/* bare-appends FILE N: N appends of 300 bytes to FILE, each write(2) followed by fsync(2) —
 * the bound of scripts/bench-command-path.sh, in C so that fsync-split.so (preloaded) can
 * time its fsyncs the way it times the program's. Built by scripts/bench-fsync-split.sh. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (fd < 0) return 1;
    char payload[300] = {1};
    for (int i = 0, n = atoi(argv[2]); i < n; i++) {
        if (write(fd, payload, sizeof payload) != sizeof payload || fsync(fd) != 0) return 1;
    }
    close(fd);
    unlink(argv[1]);
    return 0;
}
