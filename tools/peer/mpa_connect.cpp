// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer mpa-connect: an iWARP initiator's connection setup on a plain
// TCP socket, no RDMA device needed, against a passive rdma_cm server on
// an iWARP device (siw).  It answers the MPA reply as fast as user space
// can: blocked in recv() on the reply, with the RTR built beforehand and
// TCP_NODELAY set, it parses the reply and sends the RTR before anything
// else; its JSON line comes after the hold.  A peer-to-peer responder may
// not send before the RTR (RFC 6581), so the reply is the only thing to
// read until then, and it is read to its end and no further.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "mpa_wire.h"

namespace cmkit_peer {

namespace {

// A socket descriptor, closed with its owner.
class Socket {
public:
	explicit Socket(int fd) : fd_(fd) {}
	Socket(const Socket &) = delete;
	Socket &operator=(const Socket &) = delete;
	~Socket()
	{
		if (fd_ >= 0)
			close(fd_);
	}
	int fd() const { return fd_; }

private:
	int fd_;
};

std::string Errno(const char *what, int err)
{
	if (err == EAGAIN || err == EWOULDBLOCK || err == EINPROGRESS)
		return std::string(what) + ": timed out";
	return std::string(what) + ": " + strerror(err);
}

// Bounds the blocking connect(), send() and recv() of @fd by @o's timeout
// (connect() honours SO_SNDTIMEO), sends small segments at once, and has
// the kernel stamp what it receives (CLOCK_REALTIME, SO_TIMESTAMPNS): the
// reply's arrival, for rtr_us, with no clock read before the RTR goes out.
bool SetupSocket(int fd, const Options &o, std::string *err)
{
	const int one = 1;
	timeval tv{};
	tv.tv_sec = static_cast<time_t>(o.timeout_s);
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		*err = Errno("setsockopt TCP_NODELAY", errno);
		return false;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one))) {
		*err = Errno("setsockopt SO_TIMESTAMPNS", errno);
		return false;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		*err = Errno("setsockopt SO_RCVTIMEO/SO_SNDTIMEO", errno);
		return false;
	}
	return true;
}

bool SendAll(int fd, const std::vector<uint8_t> &buf, const char *what, std::string *err)
{
	size_t off = 0;
	while (off < buf.size()) {
		ssize_t n = send(fd, buf.data() + off, buf.size() - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = Errno(what, errno);
			return false;
		}
		off += static_cast<size_t>(n);
	}
	return true;
}

uint16_t LocalPort(int fd)
{
	sockaddr_storage ss{};
	socklen_t len = sizeof(ss);
	if (getsockname(fd, reinterpret_cast<sockaddr *>(&ss), &len))
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(reinterpret_cast<sockaddr_in *>(&ss)->sin_port);
	return ntohs(reinterpret_cast<sockaddr_in6 *>(&ss)->sin6_port);
}

// One recvmsg() into @p; *stamp is the kernel's receive time of the data,
// when it says.
ssize_t RecvStamped(int fd, uint8_t *p, size_t len, int flags, timespec *stamp)
{
	union {
		char buf[CMSG_SPACE(sizeof(timespec))];
		cmsghdr align;
	} control;
	iovec iov = {p, len};
	msghdr msg{};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	ssize_t n = recvmsg(fd, &msg, flags);
	if (n <= 0)
		return n;
	for (cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS)
			memcpy(stamp, CMSG_DATA(cm), sizeof(*stamp));
	return n;
}

// Read the reply into @buf, never past its end: blocked in recvmsg()
// (bounded by SO_RCVTIMEO), or with --busy-poll spinning on a non-blocking
// one until --timeout (the clock read once per 1024 empty reads).  *arrived
// is the kernel's receive time of its last bytes (zero if not stamped).
// False with c->error set.
bool ReadReply(int fd, const Options &o, std::vector<uint8_t> *buf, cmkit_mpa_frame *f,
	       timespec *arrived, MpaConnOutcome *c)
{
	const int flags = o.busy_poll ? MSG_DONTWAIT : 0;
	const uint64_t deadline = NowNs() + static_cast<uint64_t>(o.timeout_s) * 1000000000ULL;
	unsigned empty = 0;
	buf->assign(CMKIT_MPA_MAX_FRAME, 0);
	*arrived = timespec{};
	size_t have = 0, want = 0;
	for (;;) {
		int rc = MpaReadReply(buf->data(), have, f, &want);
		if (rc > 0)
			return true;
		if (rc < 0) {
			std::vector<uint8_t> head(buf->begin(),
						  buf->begin() + std::min<size_t>(have, 24));
			c->error = std::string("reply: ") + cmkit_mpa_strerror(rc) + " (" +
				   Hex(head) + ")";
			return false;
		}
		ssize_t n = RecvStamped(fd, buf->data() + have, want - have, flags, arrived);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && o.busy_poll && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    (++empty % 1024 || NowNs() < deadline))
			continue;
		if (n < 0) {
			c->error = Errno("recv reply", errno) + " after " + std::to_string(have) +
				   " bytes";
			return false;
		}
		if (n == 0) {
			c->error = "the peer closed the connection after " + std::to_string(have) +
				   " bytes of the reply";
			return false;
		}
		have += static_cast<size_t>(n);
	}
}

// Keep the connection open for --hold-ms, reading what the peer sends;
// the peer's close ends the hold.  False with c->error set.
bool Hold(int fd, const Options &o, uint64_t start, std::vector<uint8_t> *got,
	  MpaConnOutcome *c)
{
	const uint64_t deadline = start + static_cast<uint64_t>(o.hold_ms) * 1000000ULL;
	uint8_t buf[4096];
	for (;;) {
		uint64_t now = NowNs();
		if (now >= deadline)
			return true;
		pollfd p = {fd, POLLIN | POLLRDHUP, 0};
		int rc = poll(&p, 1, static_cast<int>((deadline - now + 999999) / 1000000));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			c->error = Errno("poll", errno);
			return false;
		}
		if (rc == 0)
			continue;	// the deadline, checked above
		if (p.revents & POLLNVAL) {
			c->error = "poll: descriptor not open";
			return false;
		}
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			c->peer_bytes += static_cast<uint64_t>(n);
			size_t keep = std::min<size_t>(static_cast<size_t>(n), 64 - got->size());
			got->insert(got->end(), buf, buf + keep);
			continue;
		}
		if (n == 0) {
			c->peer_closed = true;
			return true;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			continue;
		if (errno == ECONNRESET || errno == EPIPE) {
			c->peer_closed = c->peer_reset = true;
			return true;
		}
		c->error = Errno("recv", errno);
		return false;
	}
}

// Whatever arrived after the hold, so that close() sends a FIN, not a reset.
void Drain(int fd, MpaConnOutcome *c)
{
	uint8_t buf[4096];
	ssize_t n;
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		c->peer_bytes += static_cast<uint64_t>(n);
}

// One connection; its outcome in *c.  Returns an exit status.
int ConnectOnce(const Options &o, const cmkit_mpa_offer &me, const std::vector<uint8_t> &req,
		const std::vector<uint8_t> rtr[2], MpaConnOutcome *c)
{
	Socket s(socket(o.sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP));
	if (s.fd() < 0) {
		c->error = Errno("socket", errno);
		return kExitUsage;
	}
	if (!SetupSocket(s.fd(), o, &c->error))
		return kExitUsage;
	const socklen_t salen = o.sa.ss_family == AF_INET ? sizeof(sockaddr_in)
							   : sizeof(sockaddr_in6);
	int rc;
	do {
		rc = connect(s.fd(), reinterpret_cast<const sockaddr *>(&o.sa), salen);
	} while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		c->error = Errno("connect", errno);
		return kExitOther;
	}
	c->local_port = LocalPort(s.fd());
	if (!SendAll(s.fd(), req, "send request", &c->error))
		return kExitOther;

	std::vector<uint8_t> reply;
	cmkit_mpa_frame f{};
	timespec arrived;
	if (!ReadReply(s.fd(), o, &reply, &f, &arrived, c))
		return kExitOther;
	rc = cmkit_mpa_initiate(&me, CMKIT_MPA_REV2, &f, &c->decision);
	const bool send_rtr = rc == 0 && c->decision.p2p && !o.no_rtr;
	const bool sent = !send_rtr ||
			  SendAll(s.fd(), rtr[c->decision.crc ? 1 : 0], "send RTR", &c->error);
	timespec rtr_done;
	clock_gettime(CLOCK_REALTIME, &rtr_done);
	const uint64_t start = NowNs();

	// The RTR is out: the rest may take its time.
	c->replied = true;
	c->reply_flags = f.flags;
	c->reply_rev = f.rev;
	c->reply_pdata.assign(f.pdata, f.pdata + f.pdata_len);
	c->decided = rc == 0;
	if (!sent)
		return kExitOther;
	if (rc == CMKIT_MPA_E_REJECTED) {
		c->result = MpaConnOutcome::kRejected;
		c->error = cmkit_mpa_reason_str(c->decision.reason);
		return kExitOther;
	}
	if (rc) {
		c->error = std::string("reply: ") + cmkit_mpa_strerror(rc);
		return kExitOther;
	}
	c->rtr_sent = send_rtr;
	if (send_rtr && arrived.tv_sec)
		c->rtr_us = static_cast<double>(rtr_done.tv_sec - arrived.tv_sec) * 1e6 +
			    static_cast<double>(rtr_done.tv_nsec - arrived.tv_nsec) / 1e3;

	std::vector<uint8_t> got;
	bool held = Hold(s.fd(), o, start, &got, c);
	c->held_ms = static_cast<double>(NowNs() - start) / 1e6;
	if (!held)
		return kExitOther;
	if (send_rtr && c->decision.rtr == CMKIT_MPA_RTR_READ) {
		cmkit_iwarp_hdr rreq;
		cmkit_fpdu fp;
		cmkit_rtr_hdr(CMKIT_MPA_RTR_READ, &rreq);
		int chk = cmkit_rtr_check_read_resp(got.data(), got.size(), &rreq,
						    c->decision.crc, &fp);
		c->read_response = chk > 0 ? 1 : chk < 0 ? -1 : 0;
	}
	if (!c->peer_closed)
		Drain(s.fd(), c);
	c->result = MpaConnOutcome::kOk;
	return kExitOk;
}

} // namespace

int MpaConnect(const Options &o)
{
	const cmkit_mpa_offer me = MpaOffer(o);
	std::vector<uint8_t> req, rtr[2];
	if (!MpaRequest(o, &req)) {
		fprintf(stderr, "cmkit-peer mpa-connect: the MPA request could not be built\n");
		return kExitUsage;
	}
	// Both CRC variants of the offered type, ready before the reply comes.
	if (me.p2p != CMKIT_MPA_P2P_OFF && (!MpaRtr(me.rtr, false, &rtr[0]) ||
					    !MpaRtr(me.rtr, true, &rtr[1]))) {
		fprintf(stderr, "cmkit-peer mpa-connect: the RTR could not be built\n");
		return kExitUsage;
	}
	for (uint32_t i = 1; i <= o.count; i++) {
		MpaConnOutcome c;
		c.n = i;
		int status = ConnectOnce(o, me, req, rtr, &c);
		printf("%s\n", MpaOutcomeJson(c).c_str());
		fflush(stdout);
		if (status != kExitOk)
			return status;
	}
	return kExitOk;
}

} // namespace cmkit_peer
