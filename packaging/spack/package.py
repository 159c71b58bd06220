# Spack package for ostio (issue 14). Copy this directory into a Spack
# repository as packages/ostio/package.py, or use it in place:
#   spack repo create myrepo && cp packaging/spack/package.py myrepo/packages/ostio/
# How it is checked: packaging/spack/check.py (see docs/packaging.md).
import os

from spack.package import *


class Ostio(CMakePackage):
    """OST-aware parallel I/O for striped parallel file systems (Lustre
    first): a C11 + MPI library (collective I/O whose aggregators each talk
    to one OST, striped and log-structured containers, statistics), the
    `ostio` CLI, the `ostio-bench` benchmark and an LD_PRELOAD library that
    lets unmodified programs read and write containers."""

    # ostio has no public repository or release tarball yet: set OSTIO_GIT to a
    # clone (path or URL), or build a checkout with
    #   spack develop --path /path/to/ostio ostio@main && spack install ostio
    homepage = os.environ.get("OSTIO_HOMEPAGE", "https://example.invalid/ostio")
    git = os.environ.get("OSTIO_GIT", "https://example.invalid/ostio.git")

    version("main", branch="main")

    variant(
        "preload",
        default=True,
        description="Build libostio-preload.so (LD_PRELOAD access to containers)",
    )
    variant("uring", default=True, description="Batch system calls with io_uring (needs liburing)")
    variant(
        "tests",
        default=False,
        description="Build the test suite (run with `spack install --test=root`)",
    )

    depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi@3:")
    depends_on("liburing", when="+uring")
    depends_on("python@3:", type="test", when="+tests")

    def cmake_args(self):
        return [
            self.define_from_variant("OSTIO_PRELOAD", "preload"),
            self.define_from_variant("OSTIO_URING", "uring"),
            self.define_from_variant("OSTIO_TESTS", "tests"),
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
        ]

    def check(self):
        if self.spec.satisfies("+tests"):
            with working_dir(self.build_directory):
                ctest("--output-on-failure", "-LE", "preload|install")
