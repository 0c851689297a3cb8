#include "CDispatchMainQueue.h"

#if defined(__linux__)
// Exported by libdispatch for CoreFoundation; not in its public headers.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

int bindery_main_queue_descriptor(void) { return _dispatch_get_main_queue_handle_4CF(); }
void bindery_drain_main_queue(void) { _dispatch_main_queue_callback_4CF(0); }
#else
int bindery_main_queue_descriptor(void) { return -1; }
void bindery_drain_main_queue(void) {}
#endif
