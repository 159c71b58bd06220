# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)

from spack_repo.builtin.build_systems.cmake import CMakePackage

from spack.package import *


class Ostio(CMakePackage):
    """OST-aware parallel I/O for striped parallel file systems (Lustre
    first): a C11 + MPI library (collective I/O whose aggregators each talk
    to one OST, striped and log-structured containers, statistics), the
    `ostio` CLI, the `ostio-bench` benchmark and an LD_PRELOAD library that
    lets unmodified programs read and write containers."""

    # PLACEHOLDERS (docs/packaging.md): ostio has no public repository, release,
    # maintainer account or license file yet. Before submitting, replace the two
    # addresses, the GitHub handle and the license with the real ones.
    homepage = "https://ostio.example.org"
    git = "https://git.example.org/ostio/ostio.git"

    maintainers("ostio-maintainers")

    license("LicenseRef-ostio-undecided")

    version("main", branch="main")

    variant(
        "preload",
        default=True,
        description="Build libostio-preload.so (LD_PRELOAD access to containers)",
    )
    variant("uring", default=True, description="Batch system calls with io_uring (needs liburing)")

    depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi@3:")
    depends_on("liburing", when="+uring")
    depends_on("python@3:", type="test")

    def cmake_args(self):
        return [
            self.define_from_variant("OSTIO_PRELOAD", "preload"),
            self.define_from_variant("OSTIO_URING", "uring"),
            self.define("OSTIO_TESTS", self.run_tests),
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
        ]

    def check(self):
        """Install-time tests (spack install --test=root): the suite without
        the preload and install tests, which need the build tree's paths."""
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "-LE", "preload|install")

    def test_cli_help(self):
        """ostio and ostio-bench start and print their usage"""
        for name in ("ostio", "ostio-bench"):
            exe = which(self.prefix.bin.join(name))
            out = exe("--help", output=str, error=str)
            assert "usage" in out.lower(), f"{name} --help printed no usage"

    def test_container_create(self):
        """ostio creates a striped container and reports its layout"""
        ostio = which(self.prefix.bin.ostio)
        ostio("container", "create", "t.ctr", "--objects", "2", "--stripe-size", "64k")
        out = ostio("container", "stat", "t.ctr", output=str, error=str)
        assert "striped" in out, "container stat does not name the striped kind"
