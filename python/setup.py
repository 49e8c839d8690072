"""The wheel carries libpulsar (a Linux shared object), so it is tagged for the platform, not pure,
and for any Python 3 (the bindings are ctypes: no compiled extension)."""
from setuptools import Distribution, setup

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70.1
    from wheel.bdist_wheel import bdist_wheel


class WithLibrary(Distribution):
    """A distribution holding a native library: installed to platlib, tagged for the platform."""

    def has_ext_modules(self):
        return True


class AnyPython3(bdist_wheel):
    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


setup(distclass=WithLibrary, cmdclass={"bdist_wheel": AnyPython3})
