"""CMAKE_ARGS for building llama-cpp-python from source on this machine, printed on one line.

llama.cpp's default native build (-march=native) enables every kernel the build CPU has. On CPUs with AVX-512
FP16/BF16 or AMX that build segfaulted decoding the bundled Q4_1 file (issue 33), while the same file ran with
the AVX2 kernels. So on x86-64 the build is portable: GGML_NATIVE off, and the AVX/AVX2/FMA/F16C kernels turned
on only where this CPU has them; other architectures keep llama.cpp's own choice. `make install` records the
result in .venv/.llama-cmake-args, so a change of flags rebuilds.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

# llama.cpp option -> the /proc/cpuinfo flag that CPU must have for it
X86_KERNELS = {"GGML_AVX": "avx", "GGML_AVX2": "avx2", "GGML_FMA": "fma", "GGML_F16C": "f16c"}


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The first processor's feature flags (empty where /proc/cpuinfo is absent)."""
    try:
        text = cpuinfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return set()


def cmake_args(machine: str, flags: set[str]) -> list[str]:
    """The -D options for one architecture and CPU: portable x86-64 kernels, the default elsewhere."""
    if machine.lower() not in ("x86_64", "amd64"):
        return []
    args = ["-DGGML_NATIVE=OFF"]
    for option, flag in X86_KERNELS.items():
        args.append(f"-D{option}={'ON' if flag in flags else 'OFF'}")
    args += ["-DGGML_AVX512=OFF", "-DGGML_AVX512_VBMI=OFF", "-DGGML_AVX512_VNNI=OFF", "-DGGML_AVX512_BF16=OFF"]
    args += ["-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"]
    return args


def main() -> int:
    print(" ".join(cmake_args(platform.machine(), cpu_flags())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
