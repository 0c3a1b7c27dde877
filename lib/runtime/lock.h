/* A plain mutex, so the rest of the runtime does not care whether it runs on POSIX or Windows. */
#ifndef CLCOMPUTE_LOCK_H
#define CLCOMPUTE_LOCK_H

#ifdef _WIN32
#include <windows.h>
typedef SRWLOCK clc_mutex;
#define CLC_MUTEX_INITIALIZER SRWLOCK_INIT
static inline int clc_mutex_init(clc_mutex *m)
{
    InitializeSRWLock(m);
    return 0;
}
static inline void clc_mutex_destroy(clc_mutex *m)
{
    (void)m;
}
static inline void clc_mutex_lock(clc_mutex *m)
{
    AcquireSRWLockExclusive(m);
}
static inline void clc_mutex_unlock(clc_mutex *m)
{
    ReleaseSRWLockExclusive(m);
}
#else
#include <pthread.h>
typedef pthread_mutex_t clc_mutex;
#define CLC_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
static inline int clc_mutex_init(clc_mutex *m)
{
    return pthread_mutex_init(m, NULL);
}
static inline void clc_mutex_destroy(clc_mutex *m)
{
    pthread_mutex_destroy(m);
}
static inline void clc_mutex_lock(clc_mutex *m)
{
    pthread_mutex_lock(m);
}
static inline void clc_mutex_unlock(clc_mutex *m)
{
    pthread_mutex_unlock(m);
}
#endif

#endif
