#include "CSwiftRuntime.h"

// Observation's thread-local pointer to the access list being recorded (ThreadLocal.cpp in the
// Swift sources). Its entry points are hidden in libswiftObservation.so and visible only when the
// library is linked statically, as in binderyd: referenced weakly, they are NULL otherwise.
extern __attribute__((weak, swiftcall)) void *_swift_observation_tls_get(void);
extern __attribute__((weak, swiftcall)) void _swift_observation_tls_set(void *value);

int bindery_observation_access_list_linked(void) {
    return _swift_observation_tls_get != NULL && _swift_observation_tls_set != NULL;
}

void *bindery_observation_access_list_get(void) {
    return _swift_observation_tls_get();
}

void bindery_observation_access_list_set(void *value) {
    _swift_observation_tls_set(value);
}
