# Sanitizer settings shared by scripts/sanitize.sh and scripts/soak.sh (sourced). Every report
# ends the process with an error status; leaks are checked at exit, none suppressed.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Mesa's software driver (llvmpipe, what EGL gives the offscreen studio here) keeps a small block
# in one of its globals for the life of the process, but eglTerminate unloads the driver before
# exit: LeakSanitizer then finds a block no loaded module points to, allocated from an "unknown
# module", and cannot tell it from a leak. Loaded ahead of everything, the driver stays mapped
# until exit and its block stays owned. (Hence verify_asan_link_order=0 above: ASan's runtime is
# no longer the first library loaded, but its malloc still comes before libc's in the lookup
# order and initialises the runtime on its first call.)
mesa_driver=/usr/lib/$(gcc -print-multiarch)/dri/swrast_dri.so
if [ -f "$mesa_driver" ]; then
  export LD_PRELOAD="$mesa_driver${LD_PRELOAD:+ $LD_PRELOAD}"
fi
