"""llama-cpp-python is built with portable kernels on x86-64, from source, never from a cached native wheel."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("llama_cmake_args", ROOT / "scripts" / "llama_cmake_args.py")
llama_cmake_args = importlib.util.module_from_spec(spec)
spec.loader.exec_module(llama_cmake_args)

XEON_FP16 = {"avx", "avx2", "fma", "f16c", "avx512f", "avx512_fp16", "avx512_bf16", "amx_tile", "amx_bf16"}


def test_x86_builds_are_portable_and_use_what_the_cpu_has():
    args = llama_cmake_args.cmake_args("x86_64", XEON_FP16)
    assert "-DGGML_NATIVE=OFF" in args
    assert {"-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON"} <= set(args)
    assert not [arg for arg in args if ("AVX512" in arg or "AMX" in arg) and arg.endswith("=ON")]


def test_an_x86_cpu_without_avx2_gets_no_avx2_kernels():
    args = llama_cmake_args.cmake_args("x86_64", {"avx", "sse4_2"})
    assert "-DGGML_AVX=ON" in args and "-DGGML_AVX2=OFF" in args and "-DGGML_FMA=OFF" in args


def test_other_architectures_keep_llama_cpp_s_choice():
    assert llama_cmake_args.cmake_args("aarch64", {"neon", "asimd"}) == []


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu avx avx2\n\nprocessor\t: 1\nflags\t\t: fpu\n")
    assert llama_cmake_args.cpu_flags(cpuinfo) == {"fpu", "avx", "avx2"}
    assert llama_cmake_args.cpu_flags(tmp_path / "absent") == set()


def test_the_install_recipe_builds_from_source_with_those_flags_and_records_them():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("$(STAMP):", 1)[1].split("\ninstall:", 1)[0]
    assert "scripts/llama_cmake_args.py" in recipe
    assert "--no-cache-dir" in recipe and "--no-binary llama-cpp-python" in recipe
    assert ".llama-cmake-args" in recipe
    assert recipe.index("llama_cmake_args") < recipe.index("-e '.[dev]'")
