#ifndef C_DISPATCH_MAIN_QUEUE_H
#define C_DISPATCH_MAIN_QUEUE_H

// libdispatch's hooks for a program whose main thread runs its own event loop instead of calling
// dispatch_main(): what Foundation's RunLoop uses on Linux. The descriptor becomes readable when
// work waits on the main queue (Swift's main actor); the drain runs that work on the calling thread.

/// The main queue's wake-up descriptor (an eventfd on Linux), or -1 where there is none.
int bindery_main_queue_descriptor(void);

/// Runs what waits on the main queue. Call it on the main thread only.
void bindery_drain_main_queue(void);

#endif
