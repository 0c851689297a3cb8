/*
 * Valgrind 3.19 (Debian 12) dies with "the 'impossible' happened ... SIGSEGV" as soon as a program
 * calls dispatchMain(): libdispatch parks the main thread in sigsuspend() with a mask that lives in
 * read-only memory, and valgrind's rt_sigsuspend wrapper writes to the mask in place. Preloading
 * this copies the mask to the stack first. It only matters under valgrind (the main thread just
 * sleeps there), so it does not change what the profile shows. Used by callgrind-daemon.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>

int sigsuspend(const sigset_t *mask) {
    static int (*real)(const sigset_t *);
    if (!real) real = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
    sigset_t copy = *mask;
    return real(&copy);
}
