"""What one invocation of the runner asks for: full or tiny size, rounds, where to put scratch data."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    """``tiny``: each benchmark once, at a tiny size, to prove the harness works (no timing meaning).

    ``rounds`` overrides every benchmark's own number of measured rounds when set; ``processes``
    the number of processes of the benchmarks that spread their rounds over several.
    """

    tiny: bool
    work_dir: Path
    rounds: int | None = None
    processes: int | None = None

    def rounds_or(self, full: int) -> int:
        if self.rounds is not None:
            return self.rounds
        return 1 if self.tiny else full

    def processes_or(self, full: int) -> int:
        if self.processes is not None:
            return self.processes
        return 1 if self.tiny else full

    def warmup_rounds(self, full: int = 1) -> int:
        return 0 if self.tiny else full

    def scratch(self, name: str) -> Path:
        path = self.work_dir / name
        path.mkdir(parents=True, exist_ok=True)
        return path
