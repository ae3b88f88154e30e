#!/usr/bin/env python3
"""Where a request's time goes on the server side, from a packet capture on loopback.

    tcpdump -i lo -nn -tt -l 'tcp port SERVICE_PORT or tcp port DATABASE_PORT' > capture.txt
    scripts/bench/request-split.py capture.txt SERVICE_PORT DATABASE_PORT COUNT

For each request to the service (its client's data segments, then the service's answer):
the service's time from the request's last segment in to the answer's first segment out,
and of that, the time the service waited on PostgreSQL: from its first message to the
database after the request came in to the database's last answer on that same connection
before the service answered. The rest is the service's own (TLS, HTTP, JSON, its tasks and
event loops, the database driver). The kernel stamps each segment as it passes loopback, so
the client's own time and its side of the sockets are outside these figures.

Made for `giftkeeper-bench-sync append-cost --count COUNT` (scripts/bench/sync-phases.sh):
each of its connections ends with COUNT appends, then COUNT cursor reads finding nothing.
For each connection to the service that carried at least 2 × COUNT requests, the median of
each figure over those appends and over those reads is printed, a line each:
`PORT append service_us=… database_us=… own_us=…`.
"""
import re
import statistics
import sys

LINE = re.compile(r"^(\d+\.\d+) IP [\d.]+\.(\d+) > [\d.]+\.(\d+): .* length (\d+)")


def segments(path):
    """(time, source port, destination port) of each segment carrying data."""
    with open(path) as capture:
        for line in capture:
            match = LINE.match(line)
            if match and int(match.group(4)) > 0:
                yield float(match.group(1)), int(match.group(2)), int(match.group(3))


def requests(path, service, database):
    """(service µs, database µs) of each request, in order, by the client's port."""
    found = {}
    last_in = None  # the request's last segment in, while its answer is awaited (one request at a time)
    query_out = {}  # the database connection's (service-side port) first message after last_in
    answer_in = {}  # and the database's last answer on it
    for time, source, destination in segments(path):
        if destination == service:
            last_in = time
            query_out, answer_in = {}, {}
        elif source == service and last_in is not None:
            waits = [answer_in[port] - query_out[port] for port in query_out if port in answer_in]
            found.setdefault(destination, []).append(((time - last_in) * 1e6, max(waits, default=0) * 1e6))
            last_in = None
        elif destination == database and last_in is not None:
            query_out.setdefault(source, time)
        elif source == database and last_in is not None and destination in query_out:
            answer_in[destination] = time
    return found


def main():
    path, service, database, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    for port, found in requests(path, service, database).items():
        if len(found) < 2 * count:
            continue
        for name, chosen in (("append", found[-2 * count:-count]), ("read", found[-count:])):
            service_us = statistics.median(s for s, _ in chosen)
            database_us = statistics.median(d for _, d in chosen)
            own_us = statistics.median(s - d for s, d in chosen)
            print(f"{port} {name} service_us={service_us:.0f} database_us={database_us:.0f} own_us={own_us:.0f}")


if __name__ == "__main__":
    main()
