! bindings/fortran/memphis.f90 - the Fortran binding of libmemphis (include/memphis.h).
!
! Module memphis: the whole public C API through bind(C) interfaces, wrapped so that
! Fortran code calls it the Fortran way:
!
!   use memphis
!   call memphis_mark()                     ! open the unnamed region ("default")
!   call memphis_mark_named('solver')       ! open a named region (any character value;
!                                           ! trailing blanks are ignored)
!   call memphis_print()                    ! close the region, write it to the run directory
!   print *, memphis_version()              ! '0.1.0'
!
! Status: every subroutine has an optional last argument `stat` (integer, intent(out)),
! like ALLOCATE's stat=. It receives the C function's result: 0, or a negative errno
! value that memphis_strerror(stat) describes. Without `stat` the status is ignored,
! which is always safe: a profiling failure never stops or changes the program.
!
!   integer :: ierr
!   call memphis_mark(stat=ierr)
!   if (ierr /= 0) print *, 'memphis: ', memphis_strerror(ierr)
!
! Strings: names go to C as pointer + length (memphis_mark_named_len), never relying on
! compiler-specific hidden length arguments; C strings come back as deferred-length
! character values (no trailing blanks).
!
! Build and link (installed):  gfortran -I<includedir>/memphis/fortran prog.f90 \
!                                   -lmemphis_f -lmemphis
! or with pkg-config:  gfortran $(pkg-config --variable=fflags memphis) prog.f90 \
!                                   $(pkg-config --variable=fortran_libs memphis)
! libmemphis_f.a holds only this module's object; memphis.mod is specific to the
! gfortran version that built it.
module memphis
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_long, c_ptr, &
                                         c_associated, c_f_pointer
  implicit none
  private

  public :: memphis_mark, memphis_mark_named, memphis_print
  public :: memphis_version, memphis_strerror

  ! The C API, exactly as include/memphis.h declares it.
  interface
    function c_memphis_mark() bind(C, name='memphis_mark') result(r)
      import :: c_int
      integer(c_int) :: r
    end function c_memphis_mark

    function c_memphis_mark_named_len(name, len) bind(C, name='memphis_mark_named_len') &
        result(r)
      import :: c_int, c_char, c_long
      character(kind=c_char), intent(in) :: name(*)
      integer(c_long), value :: len
      integer(c_int) :: r
    end function c_memphis_mark_named_len

    function c_memphis_print() bind(C, name='memphis_print') result(r)
      import :: c_int
      integer(c_int) :: r
    end function c_memphis_print

    function c_memphis_version() bind(C, name='memphis_version') result(r)
      import :: c_ptr
      type(c_ptr) :: r
    end function c_memphis_version

    function c_memphis_strerror(err) bind(C, name='memphis_strerror') result(r)
      import :: c_int, c_ptr
      integer(c_int), value :: err
      type(c_ptr) :: r
    end function c_memphis_strerror

    function c_strlen(s) bind(C, name='strlen') result(n)
      import :: c_ptr, c_long
      type(c_ptr), value :: s
      integer(c_long) :: n
    end function c_strlen
  end interface

contains

  ! Open an unnamed region: sample every thread until memphis_print(). An open region is
  ! closed first. stat: 0, or -errno when sampling cannot start (the program goes on).
  subroutine memphis_mark(stat)
    integer, intent(out), optional :: stat
    integer :: r

    r = int(c_memphis_mark())
    if (present(stat)) stat = r
  end subroutine memphis_mark

  ! The same for a region called `name` (at most 63 bytes kept; trailing blanks ignored;
  ! '' means "default"). Regions of the same name add up in the report (--region NAME).
  subroutine memphis_mark_named(name, stat)
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: stat
    integer :: r

    r = int(c_memphis_mark_named_len(name, int(len(name), c_long)))
    if (present(stat)) stat = r
  end subroutine memphis_mark_named

  ! Close the open region and write it to the run directory. stat: 0, or -EINVAL (-22)
  ! when no region is open.
  subroutine memphis_print(stat)
    integer, intent(out), optional :: stat
    integer :: r

    r = int(c_memphis_print())
    if (present(stat)) stat = r
  end subroutine memphis_print

  ! The library's version, "MAJOR.MINOR.PATCH".
  function memphis_version() result(s)
    character(len=:), allocatable :: s

    s = from_c(c_memphis_version())
  end function memphis_version

  ! A description of a status returned by a memphis subroutine (negative errno included).
  function memphis_strerror(err) result(s)
    integer, intent(in) :: err
    character(len=:), allocatable :: s

    s = from_c(c_memphis_strerror(int(err, c_int)))
  end function memphis_strerror

  ! A NUL-terminated C string as a Fortran character value ('' for NULL).
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n, i

    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function from_c

end module memphis
