#ifndef C_DISPATCH_MAIN_QUEUE_H
#define C_DISPATCH_MAIN_QUEUE_H

// libdispatch's hooks for a program whose main thread runs its own event loop instead of calling
// dispatch_main(): what Foundation's RunLoop uses on Linux. The descriptor becomes readable when
// work waits on the main queue (Swift's main actor); the drain runs that work on the calling thread.

/// The main queue's wake-up descriptor (an eventfd on Linux), or -1 where there is none.
int bindery_main_queue_descriptor(void);

/// Runs what waits on the main queue. Call it on the main thread only.
void bindery_drain_main_queue(void);

/// Whether Foundation's run loop (CoreFoundation) is linked into this program: it is when the
/// program uses `Timer`, `RunLoop` or anything else of Foundation that needs them, and then only.
int bindery_run_loop_available(void);

/// Runs the main run loop once without waiting: fires the Foundation timers that are due. Returns
/// the seconds until the next timer is due, or -1 when none is scheduled (or no run loop is linked).
/// Call it on the main thread only.
double bindery_run_loop_fire_due_timers(void);

#endif
