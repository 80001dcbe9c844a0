/* Default options of the sanitizer runtimes, compiled into every executable
 * of an M2VP_SANITIZE build (the runtimes call these functions at start-up;
 * ASAN_OPTIONS etc. in the environment still override them). Why each one:
 * see docs/sanitizers.md. */

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

const char *__asan_default_options(void);
const char *__ubsan_default_options(void);
const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);

const char *__asan_default_options(void) {
  return
      /* SystemC runs every SC_THREAD on a coroutine stack of its own and
       * switches stacks without telling ASan (Debian's libsystemc is not
       * built with the fiber annotations). With the fake stacks of
       * use-after-return detection a switch would leave ASan's bookkeeping
       * on the wrong stack: off. */
      "detect_stack_use_after_return=0"
      /* Leaks fail the run (LeakSanitizer at exit). */
      ":detect_leaks=1"
      /* A bug is found once, in one report: stop there, as the tests expect
       * a non-zero exit code. */
      ":halt_on_error=1"
      /* Integration tests check exit codes 64-67 of the simulator: ASan's
       * own code must differ from all of them. */
      ":exitcode=99"
      /* Stack traces with file and line. */
      ":symbolize=1";
}

const char *__ubsan_default_options(void) { return "print_stacktrace=1:halt_on_error=1:exitcode=99"; }

/* One suppression, for an allocation of SystemC's, not ours. wait(a | b)
 * makes SystemC (libsystemc, Debian's, uninstrumented) build an event list
 * whose storage only the waiting thread's stack refers to. A thread still
 * waiting there when a run ends (stalled, at its time limit, or even a clean
 * end: 4 in a clean 2-node ping-pong) never returns,
 * and LeakSanitizer does not count SystemC's coroutine stacks as roots, so
 * the list's vector (64 bytes per such thread) looks leaked (seen: the DMA
 * engines' and switch controller's waits in a run that hit its time limit).
 * Our own allocations of stopped threads are not suppressed but kept
 * reachable (the host CPU's argument vector is a member, not a local). */
/* A second one, inside Unicorn (Debian's libunicorn, uninstrumented): when
 * guest code writes over a page that holds translated code (the firmware
 * whose stack grows down over its code, test "bad input: a stack overflow is
 * named in the fault report"), Unicorn allocates a 512-byte code bitmap in
 * tb_invalidate_phys_page_fast_ppc that LeakSanitizer then finds
 * unreferenced (the rest of Unicorn's memory is not reported: it is that
 * one block Unicorn loses track of). Not our allocation; no other run of the
 * suite allocates it. */
const char *__lsan_default_suppressions(void) {
  return "leak:std::vector<sc_core::sc_event const*\n"
         "leak:tb_invalidate_phys_page_fast_ppc\n";
}

/* The table of suppressions used would go to stderr at every exit; the
 * integration tests check that a clean run prints nothing there. */
const char *__lsan_default_options(void) { return "print_suppressions=0"; }

/* LeakSanitizer scans the stack ASan believes the thread is on. SystemC
 * announces its coroutine switches, but a process that ends (an SC_THREAD
 * returning: its coroutine is aborted, not yielded from) leaves the main
 * thread recorded with that dead coroutine's stack, and every later switch
 * back to main carries the wrong bounds on. At exit LSan then scans a freed
 * stack and crashes ("Tracer caught signal 11", seen in the DMA unit tests,
 * whose test thread ends), or scans the wrong memory. Before LSan's exit
 * check (registered earlier, so it runs later) the main thread's real stack
 * is announced again, when exit() is called on it. */
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old);

static void m2_announce_main_stack(void) {
  pthread_attr_t attr;
  void *bottom = NULL;
  size_t size = 0;
  char here;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  if (pthread_attr_getstack(&attr, &bottom, &size) != 0) size = 0;
  pthread_attr_destroy(&attr);
  if (size == 0 || &here < (char *)bottom || &here >= (char *)bottom + size)
    return; /* exit() called on a coroutine stack: ASan's record is right */
  __sanitizer_start_switch_fiber(NULL, bottom, size);
  __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
}

__attribute__((constructor)) static void m2_register_exit_hook(void) { atexit(m2_announce_main_stack); }
