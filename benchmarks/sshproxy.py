"""One TCP front port per simulated learner VM, all relaying to one sshd on loopback.

Why a proxy: every learner gets its own address:port (so each host has its own ssh
ControlPersist master, as real VMs do), the bytes each host moves over SSH are counted here,
and the unhealthy VMs of the fault run are made here:
  relay        forward both ways, count bytes
  delay:S      accept, wait S seconds, then relay (an sshd slow to answer)
  blackhole    accept and never send a byte (a VM whose SSH never answers)

Usage: python sshproxy.py --target PORT --spec SPEC.json --ports-out PORTS.json --stats-out STATS.json
SPEC.json is {host: mode}; PORTS.json is written once every port listens ({host: port});
STATS.json is written on SIGUSR1 (counts so far; the proxy goes on) and on SIGTERM/SIGINT:
{host: {"up": bytes to sshd, "down": bytes from sshd,
"connections": n}, "_cpu_seconds": this process's CPU}.
Only 127.0.0.1 is ever bound.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import socket

LOOPBACK = "127.0.0.1"
CHUNK = 256 * 1024


async def pump(reader, writer, counter, key):
    try:
        while data := await reader.read(CHUNK):
            counter[key] += len(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        if not writer.is_closing():
            try:
                writer.write_eof()
            except (OSError, RuntimeError):
                writer.close()


def handler(target_port, mode, stats, held):
    async def handle(client_reader, client_writer):
        stats["connections"] += 1
        sock = client_writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if mode == "blackhole":
            held.append(client_writer)  # keep it open, answer nothing, until the client gives up
            await client_reader.read()
            client_writer.close()
            return
        if mode.startswith("delay:"):
            await asyncio.sleep(float(mode.split(":", 1)[1]))
        try:
            server_reader, server_writer = await asyncio.open_connection(LOOPBACK, target_port)
        except OSError:
            client_writer.close()
            return
        server_writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(pump(client_reader, server_writer, stats, "up"),
                             pump(server_reader, client_writer, stats, "down"))
        client_writer.close()
        server_writer.close()
    return handle


async def main(args):
    with open(args.spec, encoding="utf-8") as fh:
        spec = json.load(fh)
    stats = {host: {"up": 0, "down": 0, "connections": 0} for host in spec}
    held = []
    ports = {}
    servers = []
    for host, mode in spec.items():
        server = await asyncio.start_server(handler(args.target, mode, stats[host], held), LOOPBACK, 0,
                                            backlog=64)
        servers.append(server)
        ports[host] = server.sockets[0].getsockname()[1]
    # before PORTS.json says the proxy is ready: a signal sent then must find its handler
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, write_stats, args.stats_out, stats)
    tmp = args.ports_out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(ports, fh)
    os.replace(tmp, args.ports_out)
    await stop.wait()
    write_stats(args.stats_out, stats)


def write_stats(path, stats):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({**stats, "_cpu_seconds": usage.ru_utime + usage.ru_stime}, fh)
    os.replace(tmp, path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", type=int, required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--ports-out", required=True)
    parser.add_argument("--stats-out", required=True)
    asyncio.run(main(parser.parse_args()))
