! tests/golden_f/golden.f90 - the Fortran golden attribution program (tests/report/t_golden_f.sh),
! built by the test with gfortran -g -fopenmp at -O0 and -O2. Ground truth by construction,
! as in tests/golden/golden.h: every measured access is a random load of a real(8), each
! load's index depends on the sum of the values loaded before (all -0.0, so it adds 0),
! so the loads run one after another and each pays one full miss. In each iteration
! variable V is loaded W_V times and holds W_V * UNIT elements: V's share of the region's
! samples is W_V / (sum of the W).
!
! Region "main" loads two members of a COMMON block (declared here and in fill_common),
! a module array, an allocatable and a pointer module array (named through their
! descriptors), a local
! allocatable array of a subroutine (named by its ALLOCATE statement), a threadprivate
! COMMON member and a threadprivate module array (TLS). Region "temp" runs an array
! assignment for which gfortran mallocs a temporary (named <temporary at golden.f90:L>).
! Lines marked LINE:tag are the only lines that load their variable in the region;
! SITE:tag marks an ALLOCATE statement. Weights are the parameters w_* below.
!   golden [SECONDS]  (length of each region in CPU time, default 1)
module gmod
  implicit none
  integer, parameter :: unit = 2**19   ! elements per weight unit: 4 MiB
  integer, parameter :: w_ga = 4, w_gb = 3, w_mv = 3, w_al = 4, w_pt = 3, w_loc = 3, &
                        w_tc = 2, w_tv = 2
  integer, parameter :: w_sum = w_ga + w_gb + w_mv + w_al + w_pt + w_loc + w_tc + w_tv
  integer, parameter :: iters = 2**17, chunk = 4096
  real(8), parameter :: fill = -0.0d0
  real(8) :: mv(w_mv * unit)
  real(8), allocatable :: al(:)
  real(8), pointer :: pt(:) => null()
  real(8) :: tv(w_tv * unit)
  !$omp threadprivate(tv)
contains

  ! iters iterations of the groups: group k has w(k) indices in 1..w(k) * unit
  subroutine make_index(ix)
    integer, allocatable, intent(out) :: ix(:)
    integer :: w(8), it, k, j, n
    integer(8) :: x
  
    w = [w_ga, w_gb, w_mv, w_al, w_pt, w_loc, w_tc, w_tv]
    allocate(ix(iters * w_sum))
    x = 88172645463325252_8
    n = 0
    do it = 1, iters
      do k = 1, 8
        do j = 1, w(k)
          x = ieor(x, ishft(x, 13))
          x = ieor(x, ishft(x, -7))
          x = ieor(x, ishft(x, 17))
          n = n + 1
          ix(n) = int(modulo(ishft(x, -8), int(w(k) * unit, 8))) + 1
        end do
      end do
    end do
  end subroutine make_index
end module gmod

program golden
  use memphis
  use gmod
  implicit none
  real(8) :: ga(w_ga * unit), gb(w_gb * unit)
  common /gblk/ ga, gb
  real(8) :: tc(w_tc * unit)
  common /tblk/ tc
  !$omp threadprivate(/tblk/)
  integer, allocatable :: ix(:)
  real(8) :: seconds, v
  character(len=32) :: arg

  seconds = 1.0d0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) seconds
  end if
  allocate(al(w_al * unit)) ! SITE:al
  al = fill
  allocate(pt(w_pt * unit))
  pt = fill
  mv = fill
  tc = fill
  tv = fill
  call fill_common()
  call make_index(ix)
  v = fill
  call with_local(ix, seconds, v)
  call temporaries(seconds / 2)
  print '(a, f4.1)', 'golden ', v
end program golden

subroutine fill_common()
  use gmod
  implicit none
  real(8) :: ga(w_ga * unit), gb(w_gb * unit)
  common /gblk/ ga, gb

  ga = fill
  gb = fill
end subroutine fill_common


! A local allocatable (its descriptor on the stack): named by its ALLOCATE statement.
subroutine with_local(ix, seconds, v)
  use memphis
  use gmod
  implicit none
  integer, intent(in) :: ix(*)
  real(8), intent(in) :: seconds
  real(8), intent(inout) :: v
  real(8), allocatable :: loc(:)
  integer :: at
  real(8) :: t0, t1

  allocate(loc(w_loc * unit)) ! SITE:loc
  loc = fill
  at = 0
  call cpu_time(t0) ! CPU time: the region's samples do not depend on the machine's load
  call memphis_mark_named('main')
  do
    call loads(ix(at * w_sum + 1), chunk, loc, v)
    at = mod(at + chunk, iters)
    call cpu_time(t1)
    if (t1 - t0 >= seconds) exit
  end do
  call memphis_print()
end subroutine with_local

subroutine loads(ix, n, loc, v)
  use gmod
  implicit none
  integer, intent(in) :: ix(*), n
  real(8), intent(in) :: loc(*)
  real(8), intent(inout) :: v
  real(8) :: ga(w_ga * unit), gb(w_gb * unit)
  common /gblk/ ga, gb
  real(8) :: tc(w_tc * unit)
  common /tblk/ tc
  !$omp threadprivate(/tblk/)
  integer :: it, k, p

  p = 1
  do it = 1, n
    do k = 1, w_ga
      v = v + ga(ix(p) + int(v)); p = p + 1 ! LINE:ga
    end do
    do k = 1, w_gb
      v = v + gb(ix(p) + int(v)); p = p + 1 ! LINE:gb
    end do
    do k = 1, w_mv
      v = v + mv(ix(p) + int(v)); p = p + 1 ! LINE:mv
    end do
    do k = 1, w_al
      v = v + al(ix(p) + int(v)); p = p + 1 ! LINE:al
    end do
    do k = 1, w_pt
      v = v + pt(ix(p) + int(v)); p = p + 1 ! LINE:pt
    end do
    do k = 1, w_loc
      v = v + loc(ix(p) + int(v)); p = p + 1 ! LINE:loc
    end do
    do k = 1, w_tc
      v = v + tc(ix(p) + int(v)); p = p + 1 ! LINE:tc
    end do
    do k = 1, w_tv
      v = v + tv(ix(p) + int(v)); p = p + 1 ! LINE:tv
    end do
  end do
end subroutine loads

! Region "temp": a = a(perm) needs a temporary (the right side may alias the left), which
! gfortran mallocs inside the statement, as in the paper's XGC1 case. a and perm come
! from one ALLOCATE statement (two mallocs, one report entry).
subroutine temporaries(seconds)
  use memphis
  use gmod
  implicit none
  real(8), intent(in) :: seconds
  real(8), allocatable :: a(:)
  integer, allocatable :: perm(:)
  integer :: i, n
  real(8) :: t0, t1

  n = 4 * unit
  allocate(a(n), perm(n)) ! SITE:a
  do i = 1, n
    perm(i) = n + 1 - i
    a(i) = fill
  end do
  call cpu_time(t0)
  call memphis_mark_named('temp')
  do
    a = a(perm) ! LINE:temp
    call cpu_time(t1)
    if (t1 - t0 >= seconds) exit
  end do
  call memphis_print()
end subroutine temporaries
