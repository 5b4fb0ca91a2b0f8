"""Free loopback ports for the servers tests start (never a fixed port)."""

from __future__ import annotations

import socket

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def is_free(port: int) -> bool:
    """Whether ``port`` on the loopback address can be bound now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True
