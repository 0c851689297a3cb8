#include "CDispatchMainQueue.h"

// Foundation's run loop, referenced weakly: these resolve only in a program that links
// CoreFoundation anyway (it uses Timer or RunLoop); elsewhere they are NULL and cost nothing.
typedef const void *CFRunLoopRef;
typedef const void *CFStringRef;
extern CFRunLoopRef CFRunLoopGetMain(void) __attribute__((weak));
extern int CFRunLoopRunInMode(CFStringRef mode, double seconds, unsigned char returnAfterSourceHandled) __attribute__((weak));
extern double CFRunLoopGetNextTimerFireDate(CFRunLoopRef loop, CFStringRef mode) __attribute__((weak));
extern double CFAbsoluteTimeGetCurrent(void) __attribute__((weak));
extern const CFStringRef kCFRunLoopDefaultMode __attribute__((weak));

int bindery_run_loop_available(void) {
    return CFRunLoopGetMain && CFRunLoopRunInMode && CFRunLoopGetNextTimerFireDate && CFAbsoluteTimeGetCurrent
        && &kCFRunLoopDefaultMode;
}

double bindery_run_loop_fire_due_timers(void) {
    if (!bindery_run_loop_available()) return -1;
    // Zero seconds: fire what is due, then return (the main loop waits in poll, not here).
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, 0);
    double next = CFRunLoopGetNextTimerFireDate(CFRunLoopGetMain(), kCFRunLoopDefaultMode);
    if (next == 0) return -1;
    double wait = next - CFAbsoluteTimeGetCurrent();
    return wait < 0 ? 0 : wait;
}
