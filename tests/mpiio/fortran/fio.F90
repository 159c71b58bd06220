! fio.F90 PATH: MPI-IO from Fortran (docs/mpiio.md, "Tools and Fortran"), built
! three times by tests/mpiio/fortran/fortran.cmake: -DSTYLE_MPIFH (include
! 'mpif.h'), -DSTYLE_MPI (use mpi), -DSTYLE_F08 (use mpi_f08). Every rank of
! MPI_COMM_WORLD, N integers per piece, each value naming rank and place:
!   A  write_at_all  at byte rank*N*4 (the default byte view)
!   B  set_view (displacement np*N*4, etype and filetype MPI_INTEGER), seek to
!      rank*N, write_all
!   C  seek to np*N + rank*M, write (independent) M integers
! then read_at_all of B back through the view, get_size, close; rank 0 prints
! "No Errors" when every rank passed. tests/mpiio/compare.sh runs it natively
! and through libostio-mpiio.so and compares the files.
program fio
#if defined(STYLE_F08)
  use mpi_f08
#elif defined(STYLE_MPI)
  use mpi
#endif
  implicit none
#if defined(STYLE_MPIFH)
  include 'mpif.h'
#endif
  integer, parameter :: N = 256, M = 16
#if defined(STYLE_F08)
  type(MPI_File) :: fh
  type(MPI_Status) :: st
#else
  integer :: fh
  integer :: st(MPI_STATUS_SIZE)
#endif
  integer :: ierr, rank, np, i, errs, allerrs
  integer :: a(N), b(N), c(M), back(N)
  integer(kind=MPI_OFFSET_KIND) :: off, disp, fsize, want
  character(len=4096) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  errs = 0
  if (command_argument_count() < 1) then
    if (rank == 0) print '(A)', 'usage: fio PATH'
    call MPI_Finalize(ierr)
    stop 2
  end if
  call get_command_argument(1, path)
  do i = 1, N
    a(i) = rank * 1000000 + i
    b(i) = rank * 1000000 + 100000 + i
  end do
  do i = 1, M
    c(i) = rank * 1000000 + 200000 + i
  end do

  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, ierr)
  call check(ierr, 'MPI_File_open')
  if (errs == 0) then
    off = int(rank, MPI_OFFSET_KIND) * N * 4
    call MPI_File_write_at_all(fh, off, a, N, MPI_INTEGER, st, ierr)
    call check(ierr, 'MPI_File_write_at_all')
    disp = int(np, MPI_OFFSET_KIND) * N * 4
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    call check(ierr, 'MPI_File_set_view')
    off = int(rank, MPI_OFFSET_KIND) * N
    call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
    call check(ierr, 'MPI_File_seek')
    call MPI_File_write_all(fh, b, N, MPI_INTEGER, st, ierr)
    call check(ierr, 'MPI_File_write_all')
    off = int(np, MPI_OFFSET_KIND) * N + int(rank, MPI_OFFSET_KIND) * M
    call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
    call check(ierr, 'MPI_File_seek')
    call MPI_File_write(fh, c, M, MPI_INTEGER, st, ierr)
    call check(ierr, 'MPI_File_write')
    call MPI_File_sync(fh, ierr)
    call check(ierr, 'MPI_File_sync')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_File_sync(fh, ierr)
    back = -1
    off = int(rank, MPI_OFFSET_KIND) * N
    call MPI_File_read_at_all(fh, off, back, N, MPI_INTEGER, st, ierr)
    call check(ierr, 'MPI_File_read_at_all')
    if (any(back /= b)) then
      print '(A,I0,A)', 'rank ', rank, ': read_at_all gave other values than written'
      errs = errs + 1
    end if
    call MPI_File_get_size(fh, fsize, ierr)
    call check(ierr, 'MPI_File_get_size')
    want = int(np, MPI_OFFSET_KIND) * (2 * N + M) * 4
    if (fsize /= want) then
      print '(A,I0,A,I0,A,I0)', 'rank ', rank, ': size ', fsize, ', expected ', want
      errs = errs + 1
    end if
    call MPI_File_close(fh, ierr)
    call check(ierr, 'MPI_File_close')
  end if
  call MPI_Allreduce(errs, allerrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. allerrs == 0) print '(A)', 'No Errors'
  call MPI_Finalize(ierr)
  if (allerrs /= 0) stop 1

contains

  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    if (code /= MPI_SUCCESS) then
      print '(A,I0,A,A,A,I0)', 'rank ', rank, ': ', what, ' failed, error ', code
      errs = errs + 1
    end if
  end subroutine check

end program fio
