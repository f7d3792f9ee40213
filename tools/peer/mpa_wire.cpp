// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// mpa-connect's pure parts (see mpa_wire.h).
#include "mpa_wire.h"

#include <cstdio>

#include "json.h"

namespace cmkit_peer {

cmkit_mpa_offer MpaOffer(const Options &o)
{
	cmkit_mpa_offer me{};
	me.rev = CMKIT_MPA_REV2;
	me.crc = 0;
	me.ird = kMpaIrd;
	me.ord = kMpaOrd;
	switch (o.mpa_rtr) {
	case MpaRtr::kWrite:
		me.p2p = CMKIT_MPA_P2P_ON;
		me.rtr = CMKIT_MPA_RTR_WRITE;
		break;
	case MpaRtr::kRead:
		me.p2p = CMKIT_MPA_P2P_ON;
		me.rtr = CMKIT_MPA_RTR_READ;
		break;
	case MpaRtr::kNone:
		me.p2p = CMKIT_MPA_P2P_OFF;
		me.rtr = 0;
		break;
	}
	return me;
}

bool MpaRequest(const Options &o, std::vector<uint8_t> *out)
{
	const cmkit_mpa_offer me = MpaOffer(o);
	out->assign(CMKIT_MPA_MAX_FRAME, 0);
	int n = cmkit_mpa_build_request(out->data(), out->size(), &me, CMKIT_MPA_REV2,
					o.pdata.empty() ? nullptr : o.pdata.data(),
					static_cast<cmkit_u16>(o.pdata.size()));
	if (n <= 0) {
		out->clear();
		return false;
	}
	out->resize(static_cast<size_t>(n));
	return true;
}

bool MpaRtr(unsigned rtr, bool crc, std::vector<uint8_t> *out)
{
	out->assign(64, 0);	// the longest, a Read Request, takes 52
	int n = cmkit_rtr_build(out->data(), out->size(), rtr, crc ? 1 : 0);
	if (n <= 0) {
		out->clear();
		return false;
	}
	out->resize(static_cast<size_t>(n));
	return true;
}

int MpaReadReply(const uint8_t *buf, size_t have, cmkit_mpa_frame *f, size_t *want)
{
	*want = CMKIT_MPA_HDR_LEN;
	if (have < CMKIT_MPA_HDR_LEN)
		return 0;
	int rc = cmkit_mpa_parse(buf, have, CMKIT_MPA_REPLY, f);
	if (rc < 0)
		return rc;
	// A valid header: PD_Length is at most 512.
	*want = CMKIT_MPA_HDR_LEN + (static_cast<size_t>(buf[18]) << 8 | buf[19]);
	return rc > 0 ? 1 : 0;
}

const char *RtrName(unsigned rtr)
{
	switch (rtr) {
	case CMKIT_MPA_RTR_WRITE:
		return "write";
	case CMKIT_MPA_RTR_READ:
		return "read";
	case CMKIT_MPA_RTR_SEND:
		return "send";
	default:
		return "none";
	}
}

std::string MpaOutcomeJson(const MpaConnOutcome &c)
{
	static const char *const kResults[] = {"ok", "rejected", "error"};
	Json j;
	j.Str("role", "mpa-connect").Uint("n", c.n).Str("result", kResults[c.result]);
	if (!c.error.empty())
		j.Str(c.result == MpaConnOutcome::kRejected ? "reason" : "error", c.error);
	if (c.local_port)
		j.Uint("local_port", c.local_port);
	if (c.replied) {
		char flags[8];
		snprintf(flags, sizeof(flags), "0x%02x", c.reply_flags);
		j.Str("reply_flags", flags).Uint("reply_rev", c.reply_rev);
		if (!c.reply_pdata.empty())
			j.Str("reply_pdata", Hex(c.reply_pdata));
	}
	if (c.decided) {
		j.Bool("p2p", c.decision.p2p != 0)
			.Str("rtr", RtrName(c.decision.p2p ? c.decision.rtr : 0))
			.Bool("crc", c.decision.crc != 0)
			.Uint("ird", c.decision.ird)
			.Uint("ord", c.decision.ord)
			.Bool("rtr_sent", c.rtr_sent);
		if (c.rtr_sent && c.rtr_us >= 0)
			j.Us("rtr_us", c.rtr_us);
		if (c.rtr_sent && c.decision.rtr == CMKIT_MPA_RTR_READ)
			j.Str("read_response",
			      c.read_response > 0 ? "ok" : c.read_response < 0 ? "bad" : "none");
		j.Bool("peer_closed", c.peer_closed);
		if (c.peer_reset)
			j.Bool("peer_reset", true);
		j.Uint("peer_bytes", c.peer_bytes);
		char held[32];
		snprintf(held, sizeof(held), "%.1f", c.held_ms);
		j.Raw("held_ms", held);
	}
	return j.str();
}

} // namespace cmkit_peer
