/* Preloaded into every process of a simulated Mac (the host's /etc/ld.so.preload, lab/macsim/hostfs.py).
 *
 * A waiting MLX ring rank busy-polls its sockets: mlx's SocketThread retries a non-blocking recv() (and send())
 * in a loop until data comes, so every rank of an idle served model keeps a core busy. A real Mac spends its own
 * cores on that; the lab's Macs share the controller's two, where those loops would take the CPU Ansible and the
 * tests run on. Here a non-blocking recv()/send() that would block first waits up to 1 ms for the socket to be
 * ready, then returns what the real call returns: the same results and errors, the loop no longer spinning.
 * Calls that did not ask to wait (MSG_DONTWAIT) are left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#define WAIT_MS 1

static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_send)(int, const void *, size_t, int);

static void wait_ready(int fd, short events) {
    int saved = errno;
    struct pollfd ready = {fd, events, 0};
    poll(&ready, 1, WAIT_MS);
    errno = saved;
}

ssize_t recv(int fd, void *buffer, size_t length, int flags) {
    if (!real_recv)
        real_recv = (ssize_t (*)(int, void *, size_t, int))dlsym(RTLD_NEXT, "recv");
    ssize_t got = real_recv(fd, buffer, length, flags);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !(flags & MSG_DONTWAIT))
        wait_ready(fd, POLLIN);
    return got;
}

ssize_t send(int fd, const void *buffer, size_t length, int flags) {
    if (!real_send)
        real_send = (ssize_t (*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
    ssize_t sent = real_send(fd, buffer, length, flags);
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !(flags & MSG_DONTWAIT))
        wait_ready(fd, POLLOUT);
    return sent;
}
