! examples/mpi/halo_f.f90 - the Fortran variant of halo.c: an MPI + OpenMP Jacobi stencil,
! each rank owning a block of columns (Fortran's contiguous dimension is the first) of a
! 2-D grid, one halo column exchanged with each neighbour per sweep. The rank's arrays
! (module halo_state, allocatable grid and next) are initialised by the master thread
! alone, so under first touch they sit on the master's node: when the rank's threads span
! nodes memphis-report shows their remote accesses per rank. The sweeps are one region,
! "stencil" (module memphis, bindings/fortran).
!
!   mpirun -np 4 halo_f [-s SWEEPS] [-n ROWS] [-c COLS]   (defaults 60, 1024, 256 per rank)
! Rank 0 prints the checksum of the whole grid, summed in rank order.
module halo_state
  implicit none
  real(8), allocatable :: grid(:, :), next(:, :)
end module halo_state

program halo_f
  use mpi
  use memphis
  use halo_state
  implicit none
  integer :: ierr, rank, nranks, nrows, ncols, nsweeps, s, i, j
  real(8) :: local, total
  real(8), allocatable :: all(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  nsweeps = 60
  nrows = 1024
  ncols = 256
  call options(nsweeps, nrows, ncols)

  ! columns 0 and ncols + 1 are the halo
  allocate(grid(nrows, 0:ncols + 1), next(nrows, 0:ncols + 1))
  ! master-initialised: every page on the master thread's node
  do j = 0, ncols + 1
    do i = 1, nrows
      grid(i, j) = dble(mod(i * 7 + (rank * ncols + j) * 3, 101)) / 100.0d0
    end do
  end do
  next = grid

  call memphis_mark_named('stencil')
  do s = 1, nsweeps
    call exchange(grid, nrows, ncols, rank, nranks)
    call sweep(grid, next, nrows, ncols)
    grid(2:nrows - 1, 1:ncols) = next(2:nrows - 1, 1:ncols)
  end do
  call memphis_print()

  local = 0.0d0
  do j = 1, ncols
    do i = 1, nrows
      local = local + grid(i, j)
    end do
  end do
  allocate(all(nranks))
  call MPI_Gather(local, 1, MPI_DOUBLE_PRECISION, all, 1, MPI_DOUBLE_PRECISION, 0, &
                  MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    total = 0.0d0
    do i = 1, nranks
      total = total + all(i)
    end do
    print '(a, i0, a, i0, a, es20.12)', 'halo_f: ', nranks, ' ranks, ', nsweeps, &
      ' sweeps, checksum ', total
  end if
  deallocate(grid, next, all)
  call MPI_Finalize(ierr)

contains

  ! -s SWEEPS, -n ROWS, -c COLS from the command line
  subroutine options(nsweeps, nrows, ncols)
    integer, intent(inout) :: nsweeps, nrows, ncols
    character(len=32) :: arg, val
    integer :: k, ios, x

    k = 1
    do while (k < command_argument_count())
      call get_command_argument(k, arg)
      call get_command_argument(k + 1, val)
      read (val, *, iostat=ios) x
      if (ios /= 0) x = -1
      if (arg == '-s' .and. x > 0) nsweeps = x
      if (arg == '-n' .and. x > 2) nrows = x
      if (arg == '-c' .and. x > 0) ncols = x
      k = k + 2
    end do
  end subroutine options

  ! the first and last own columns to the neighbours, theirs into the halo columns
  subroutine exchange(a, nrows, ncols, rank, nranks)
    integer, intent(in) :: nrows, ncols, rank, nranks
    real(8), intent(inout) :: a(nrows, 0:ncols + 1)
    integer :: left, right, ierr

    left = rank - 1
    right = rank + 1
    if (left < 0) left = MPI_PROC_NULL
    if (right >= nranks) right = MPI_PROC_NULL
    call MPI_Sendrecv(a(1, 1), nrows, MPI_DOUBLE_PRECISION, left, 0, &
                      a(1, ncols + 1), nrows, MPI_DOUBLE_PRECISION, right, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(a(1, ncols), nrows, MPI_DOUBLE_PRECISION, right, 1, &
                      a(1, 0), nrows, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end subroutine exchange

  ! one Jacobi sweep of the own columns (the first and last rows stay fixed)
  subroutine sweep(a, b, nrows, ncols)
    integer, intent(in) :: nrows, ncols
    real(8), intent(in) :: a(nrows, 0:ncols + 1)
    real(8), intent(inout) :: b(nrows, 0:ncols + 1)
    integer :: i, j

    !$omp parallel do schedule(static)
    do j = 1, ncols
      do i = 2, nrows - 1
        b(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
      end do
    end do
    !$omp end parallel do
  end subroutine sweep

end program halo_f
