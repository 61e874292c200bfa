! The four intercepted collectives from Fortran, with MPI_IN_PLACE, checked
! against closed forms. Compiled three ways: -DBINDING_F08 (use mpi_f08),
! -DBINDING_MPI (use mpi) or neither (include 'mpif.h').
program reductions
#if defined(BINDING_F08)
  use mpi_f08
  implicit none
#elif defined(BINDING_MPI)
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer, parameter :: nlong = 5000, nshort = 3
  integer :: rank, nprocs, ierr, i, failures, total, root
  integer :: ibuf(nlong), iout(nlong), counts(64)
  double precision :: dbuf(nlong), dout(nlong)
  integer, allocatable :: big(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  failures = 0
  root = nprocs - 1

  ! Allreduce, long (ring) and short (recursive doubling), plain and in place.
  do i = 1, nlong
    ibuf(i) = rank + i
    dbuf(i) = dble(rank) * 0.5d0 + dble(i)
  end do
  call MPI_Allreduce(ibuf, iout, nlong, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(all(iout == [(nprocs*(nprocs-1)/2 + nprocs*i, i = 1, nlong)]), 'allreduce integer')
  call MPI_Allreduce(MPI_IN_PLACE, dbuf, nshort, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(all(dbuf(1:nshort) == [(dble(nprocs*(nprocs-1))*0.25d0 + dble(nprocs*i), i = 1, nshort)]), &
       'allreduce in place double precision')
  call MPI_Allreduce(MPI_IN_PLACE, ibuf, nlong, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call expect(all(ibuf == [(nprocs - 1 + i, i = 1, nlong)]), 'allreduce in place integer max')

  ! Reduce to the last rank, in place at the root.
  do i = 1, nlong
    ibuf(i) = rank * i
  end do
  if (rank == root) then
    call MPI_Reduce(MPI_IN_PLACE, ibuf, nlong, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    call expect(all(ibuf == [(i * nprocs*(nprocs-1)/2, i = 1, nlong)]), 'reduce in place at root')
  else
    call MPI_Reduce(ibuf, iout, nlong, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  end if
  do i = 1, nlong
    dbuf(i) = dble(rank + i)
  end do
  call MPI_Reduce(dbuf, dout, nshort, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call expect(all(dout(1:nshort) == [(dble(nprocs*(nprocs-1)/2 + nprocs*i), i = 1, nshort)]), &
       'reduce double precision')

  ! Reduce_scatter_block and Reduce_scatter (irregular counts), plain and in place.
  allocate(big(100 * nprocs))
  do i = 1, 100 * nprocs
    big(i) = i + rank
  end do
  call MPI_Reduce_scatter_block(big, iout, 100, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(all(iout(1:100) == [(nprocs*(rank*100 + i) + nprocs*(nprocs-1)/2, i = 1, 100)]), &
       'reduce_scatter_block')
  call MPI_Reduce_scatter_block(MPI_IN_PLACE, big, 100, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(all(big(1:100) == iout(1:100)), 'reduce_scatter_block in place')
  total = 0
  do i = 1, nprocs
    counts(i) = mod(i, 3) * 7
    total = total + counts(i)
  end do
  do i = 1, total
    big(i) = 2 * i - rank
  end do
  call MPI_Reduce_scatter(big, iout, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(all(iout(1:counts(rank+1)) == &
       [(nprocs*2*(sum(counts(1:rank)) + i) - nprocs*(nprocs-1)/2, i = 1, counts(rank+1))]), 'reduce_scatter')
  call MPI_Reduce_scatter(MPI_IN_PLACE, big, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call expect(all(big(1:counts(rank+1)) == iout(1:counts(rank+1))), 'reduce_scatter in place')
  call expect(ierr == MPI_SUCCESS, 'ierror is MPI_SUCCESS')

  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (failures == 0) then
      print '(a,i0,a)', 'fortran: OK on ', nprocs, ' processes'
    else
      print '(a,i0,a)', 'fortran: FAILED (', failures, ' failures)'
    end if
  end if
  call MPI_Finalize(ierr)
  if (failures /= 0) stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      failures = failures + 1
      print '(a,i0,2a)', '[rank ', rank, '] FAIL: ', what
    end if
  end subroutine expect
end program reductions
