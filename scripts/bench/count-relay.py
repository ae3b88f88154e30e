#!/usr/bin/env python3
"""A TCP relay that counts the bytes a device and the sync service exchange.

    scripts/bench/count-relay.py LISTEN_PORT TARGET_PORT COUNT_FILE

Listens on 127.0.0.1:LISTEN_PORT (0: one the system chooses; printed on standard output), forwards each connection to 127.0.0.1:TARGET_PORT
unchanged (TLS passes through: the certificate names 127.0.0.1), and keeps COUNT_FILE
holding "SENT RECEIVED": the bytes devices sent and received through it so far, TLS
records included, as on the wire. make bench-sync (scripts/bench-sync.sh) reads it
around each `sync`.
"""
import asyncio
import sys

listen_port, target_port, count_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
totals = [0, 0]


def save():
    with open(count_file, "w") as out:
        out.write(f"{totals[0]} {totals[1]}\n")


async def pipe(reader, writer, direction):
    try:
        while data := await reader.read(65536):
            totals[direction] += len(data)
            save()
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


async def relay(device_reader, device_writer):
    service_reader, service_writer = await asyncio.open_connection("127.0.0.1", target_port)
    await asyncio.gather(
        pipe(device_reader, service_writer, 0), pipe(service_reader, device_writer, 1), return_exceptions=True
    )


async def main():
    save()
    server = await asyncio.start_server(relay, "127.0.0.1", listen_port)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
