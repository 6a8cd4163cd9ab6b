"""nbgrad's Numba process setup: the vector-width choice and who may override it."""

import numba
import pytest
from numba.core import codegen

from nbgrad import _threads


@pytest.fixture
def clean_config(monkeypatch):
    monkeypatch.setattr(numba.config, "CPU_FEATURES", None)
    monkeypatch.setattr(numba.config, "CPU_NAME", None)


def test_512_bit_vectors_only_where_the_cpu_has_avx512(monkeypatch, clean_config):
    monkeypatch.setattr(codegen, "get_host_cpu_features", lambda: "+sse2,+avx2,-avx512f")
    _threads._prefer_512_bit_vectors()
    assert numba.config.CPU_FEATURES is None
    monkeypatch.setattr(codegen, "get_host_cpu_features", lambda: "+avx2,+avx512f")
    _threads._prefer_512_bit_vectors()
    assert numba.config.CPU_FEATURES == "+avx2,+avx512f,-prefer-256-bit"


@pytest.mark.parametrize("knob", ["CPU_FEATURES", "CPU_NAME"])
def test_a_users_numba_cpu_settings_win(monkeypatch, clean_config, knob):
    monkeypatch.setattr(codegen, "get_host_cpu_features", lambda: "+avx2,+avx512f")
    monkeypatch.setattr(numba.config, knob, "generic" if knob == "CPU_NAME" else "+sse2")
    _threads._prefer_512_bit_vectors()
    assert numba.config.CPU_FEATURES == (None if knob == "CPU_NAME" else "+sse2")


def test_no_host_information_leaves_numba_alone(monkeypatch, clean_config):
    def broken():
        raise RuntimeError("no host CPU information")

    monkeypatch.setattr(codegen, "get_host_cpu_features", broken)
    _threads._prefer_512_bit_vectors()
    assert numba.config.CPU_FEATURES is None
