// SPDX-License-Identifier: GPL-2.0-only
/* kernel_bind() and kernel_connect() take a struct sockaddr_unsized (7.x). */
#include <linux/net.h>
#include <linux/socket.h>

int probe(struct socket *sock, struct sockaddr_unsized *addr, int len);
int probe(struct socket *sock, struct sockaddr_unsized *addr, int len)
{
	return kernel_bind(sock, addr, len) ?: kernel_connect(sock, addr, len, 0);
}
