! examples/fortran/ocean.f90 - an OpenMP Fortran time-step kernel in the shape of the
! paper's HYCOM case. Two kinds of data:
!   - COMMON /hycom1r/ dp, temp: static arrays that the master thread alone initialises
!     (reading a file, in the real code). Under first touch all their pages land on the
!     master's node: on a NUMA machine memphis-report shows the hot-spot as remote
!     accesses to hycom1r/dp and hycom1r/temp from the other nodes.
!   - module ocean_state, allocatable u, v: initialised in parallel with the same static
!     partition as the time-step loop, so each thread's part is on its own node.
! Each time step is one memphis region (call memphis_mark() / call memphis_print()).
!
!   ocean [-n POINTS] [-s STEPS]     (defaults 2000000 and 40; POINTS <= 4000000)
module ocean_state
  implicit none
  real(8), allocatable :: u(:), v(:)
end module ocean_state

program ocean
  use memphis
  use ocean_state
  implicit none
  integer, parameter :: nmax = 4000000
  real(8) :: dp(nmax), temp(nmax)
  common /hycom1r/ dp, temp
  integer :: n, nsteps, step, i
  real(8) :: check

  n = 2000000
  nsteps = 40
  call options(n, nsteps)
  n = max(3, min(n, nmax))

  allocate(u(n), v(n))
  ! the module arrays: first touch in the compute partition (NUMA-aware)
  !$omp parallel do schedule(static)
  do i = 1, n
    u(i) = 0.0d0
    v(i) = 0.0d0
  end do
  !$omp end parallel do
  ! the COMMON arrays: the master thread touches everything (the hot-spot)
  do i = 1, n
    dp(i) = 1.0d0 + mod(i, 7) ! LINE:init_dp
    temp(i) = 10.0d0 + mod(i, 13) ! LINE:init_temp
  end do

  do step = 1, nsteps
    call memphis_mark()
    call advance(n, 1.0d-3)
    call memphis_print()
  end do

  check = sum(u(1:n)) + sum(v(1:n))
  print '(a, i0, a, i0, a, es12.5)', 'ocean: ', n, ' points, ', nsteps, ' steps, check ', check
  deallocate(u, v)

contains

  ! -n POINTS and -s STEPS from the command line
  subroutine options(n, nsteps)
    integer, intent(inout) :: n, nsteps
    character(len=32) :: arg, val
    integer :: k, ios, x

    k = 1
    do while (k < command_argument_count())
      call get_command_argument(k, arg)
      call get_command_argument(k + 1, val)
      read (val, *, iostat=ios) x
      if (ios /= 0) x = -1
      if (arg == '-n' .and. x > 0) n = x
      if (arg == '-s' .and. x > 0) nsteps = x
      k = k + 2
    end do
  end subroutine options

end program ocean

! One time step: the module arrays are updated from gradients of the COMMON arrays, with
! the same static partition as their initialisation.
subroutine advance(n, dt)
  use ocean_state
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: dt
  integer, parameter :: nmax = 4000000
  real(8) :: dp(nmax), temp(nmax)
  common /hycom1r/ dp, temp
  integer :: i

  !$omp parallel do schedule(static)
  do i = 2, n - 1
    u(i) = 0.5d0 * u(i) + dt * (dp(i + 1) - dp(i - 1)) ! LINE:u_dp
    v(i) = 0.5d0 * v(i) + dt * (temp(i + 1) - temp(i - 1)) ! LINE:v_temp
  end do
  !$omp end parallel do
end subroutine advance
