// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: the MPA frame parsers (both kinds), IRD/ORD negotiation
// and the RFC 6581 deciders.  The input is taken three ways: as a received
// frame for cmkit_mpa_parse_strict(); as a received frame for cmkit_mpa_parse() and
// the responder's and initiator's decisions under fixed offers; and as two
// offers (first 8 bytes) and private data for a whole exchange.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "cmkit/mpa.h"

namespace {

void Require(bool ok)
{
	if (!ok)
		abort();
}

cmkit_mpa_offer Offer(cmkit_u8 rev, cmkit_u8 p2p, cmkit_u8 rtr, cmkit_u16 ird, cmkit_u16 ord,
		      cmkit_u8 crc, cmkit_u8 strict)
{
	cmkit_mpa_offer o{};
	o.rev = rev;
	o.p2p = p2p;
	o.rtr = rtr;
	o.ird = ird;
	o.ord = ord;
	o.crc = crc;
	o.ird_strict = strict;
	o.rev1_fallback = 1;
	return o;
}

const cmkit_mpa_offer kOffers[] = {
	Offer(1, CMKIT_MPA_P2P_OFF, 0, 4, 4, 0, 0),
	Offer(2, CMKIT_MPA_P2P_OFF, 0, 16, 16, 1, 0),
	Offer(2, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 4, 4, 0, 0),
	Offer(2, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_READ, 0, 1, 0, 1),
	Offer(2, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_SEND, 1, 0, 1, 1),
	Offer(2, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_WRITE | CMKIT_MPA_RTR_READ,
	      CMKIT_MPA_V2_NO_IRD_ORD, CMKIT_MPA_V2_NO_IRD_ORD, 0, 1),
};

bool OneType(cmkit_u8 rtr)
{
	return rtr == CMKIT_MPA_RTR_WRITE || rtr == CMKIT_MPA_RTR_READ ||
	       rtr == CMKIT_MPA_RTR_SEND;
}

void Check(const std::vector<uint8_t> &buf, enum cmkit_mpa_kind kind)
{
	const cmkit_u8 *p = buf.empty() ? nullptr : buf.data();
	struct cmkit_mpa_frame f {};
	int rc = cmkit_mpa_parse_strict(p, buf.size(), kind, &f);

	if (rc > 0) {
		// A whole frame: everything it names lies inside what was given.
		if ((size_t)rc != f.frame_len || f.frame_len > buf.size())
			abort();
		if (f.pdata < p || f.pdata + f.pdata_len > p + buf.size())
			abort();
		if (f.pdata_len > CMKIT_MPA_MAX_PD_LEN)
			abort();
		if (f.enhanced) {
			cmkit_u16 ird = 16, ord = 16;
			int n = cmkit_mpa_negotiate_ird_ord(kind == CMKIT_MPA_REPLY, &ird,
							    &ord, f.ird, f.ord);
			if (ord > 16 || ird != 16 || (n && n != CMKIT_MPA_E_IRD))
				abort();	// only ever lowered
		}
	} else if (rc == 0) {
		// More bytes needed: then the input really is a prefix.
		if (buf.size() >= CMKIT_MPA_MAX_FRAME)
			abort();
	} else if (rc < CMKIT_MPA_E_ARG) {
		abort();
	}
}

// A responder's decision on a received request, and the reply it sends.
void Respond(const cmkit_mpa_offer &me, const cmkit_mpa_frame &req)
{
	cmkit_mpa_result r{};
	int rc = cmkit_mpa_respond(&me, &req, &r);

	Require(rc >= 0 && rc <= CMKIT_MPA_REJ_MAX && (rc == 0) == r.accept);
	Require(r.rev == CMKIT_MPA_REV1 || r.rev == CMKIT_MPA_REV2);
	if (r.accept) {
		Require(r.rev == req.rev && r.rev <= me.rev && r.enhanced == !!req.enhanced);
		Require(r.ird == me.ird && r.ord <= me.ord);
		if (req.enhanced)
			Require(r.ord <= req.ird);
		if (r.p2p)
			Require(OneType(r.rtr) && (r.rtr & me.rtr & cmkit_mpa_rtr_offered(&req)) &&
				(req.ird_ctrl & CMKIT_MPA_V2_PEER_TO_PEER) &&
				(r.rtr != CMKIT_MPA_RTR_READ || me.ird));
		else
			Require(!r.rtr && me.p2p != CMKIT_MPA_P2P_REQUIRED &&
				!(req.enhanced && (req.ird_ctrl & CMKIT_MPA_V2_PEER_TO_PEER)));
		Require(!(req.flags & CMKIT_MPA_FLAG_MARKERS));
	}
	// The reply it calls for can be written and reads back as decided.
	cmkit_u8 out[CMKIT_MPA_MAX_FRAME];
	static const char pd[] = "consumer";
	int n = cmkit_mpa_build_reply(out, sizeof(out), &r, r.accept ? pd : nullptr,
				      r.accept ? sizeof(pd) : 0);
	Require(n > 0);
	cmkit_mpa_frame rep{};
	Require(cmkit_mpa_parse(out, (cmkit_size)n, CMKIT_MPA_REPLY, &rep) == n);
	Require(rep.rev == r.rev && !(rep.flags & CMKIT_MPA_FLAG_MARKERS));
	Require(!(rep.flags & CMKIT_MPA_FLAG_REJECT) == !!r.accept);
	if (!r.accept)
		Require(cmkit_mpa_reject_reason_get(rep.pdata, rep.pdata_len) == r.reason);
	else if (r.enhanced)
		Require(cmkit_mpa_rtr_offered(&rep) == r.rtr &&
			!!(rep.ird_ctrl & CMKIT_MPA_V2_PEER_TO_PEER) == r.p2p);
}

// An initiator's decision on a received reply, and its fallback.
void Initiate(const cmkit_mpa_offer &me, cmkit_u8 sent_rev, const cmkit_mpa_frame &rep)
{
	cmkit_mpa_result r{};
	int rc = cmkit_mpa_initiate(&me, sent_rev, &rep, &r);

	Require(rc == 0 || rc == CMKIT_MPA_E_REJECTED || rc == CMKIT_MPA_E_REPLY_REV ||
		rc == CMKIT_MPA_E_MARKERS || rc == CMKIT_MPA_E_CRC || rc == CMKIT_MPA_E_P2P ||
		rc == CMKIT_MPA_E_RTR || rc == CMKIT_MPA_E_IRD);
	Require((rc == 0) == r.accept);
	if (rc == 0) {
		Require(r.rev <= sent_rev && (r.rev == 1 || r.rev == 2));
		Require(r.ird <= me.ird && r.ord <= me.ord);
		if (r.p2p)
			Require(OneType(r.rtr) && (r.rtr & me.rtr) && sent_rev == 2);
		else
			Require(!r.rtr && me.p2p != CMKIT_MPA_P2P_REQUIRED);
	}
	int fb = cmkit_mpa_fallback(&me, sent_rev, &rep);
	Require(fb == 0 || (fb == 1 && rc == CMKIT_MPA_E_REJECTED && sent_rev == 2));
}

void Decide(const std::vector<uint8_t> &buf)
{
	const cmkit_u8 *p = buf.empty() ? nullptr : buf.data();
	cmkit_mpa_frame f{};

	if (cmkit_mpa_parse(p, buf.size(), CMKIT_MPA_REQUEST, &f) > 0)
		for (const cmkit_mpa_offer &me : kOffers)
			Respond(me, f);
	if (cmkit_mpa_parse(p, buf.size(), CMKIT_MPA_REPLY, &f) > 0)
		for (const cmkit_mpa_offer &me : kOffers)
			for (cmkit_u8 rev = 1; rev <= me.rev; rev++)
				Initiate(me, rev, f);
}

// Byte @i of @d as an offer field, bent into the valid range.
cmkit_mpa_offer OfferFrom(const uint8_t *d)
{
	cmkit_mpa_offer o{};
	o.rev = (d[0] & 1) ? 2 : 1;
	o.p2p = (cmkit_u8)((d[0] >> 1) % 3);
	o.rtr = (d[0] >> 3) & CMKIT_MPA_RTR_ALL;
	o.crc = (d[0] >> 6) & 1;
	o.ird_strict = (d[0] >> 7) & 1;
	o.rev1_fallback = d[1] & 1;
	o.ird = (cmkit_u16)(((d[1] >> 1) | (d[2] << 7)) & CMKIT_MPA_V2_IRD_ORD_MASK);
	o.ord = (cmkit_u16)((d[3] | (d[2] & 0x3f) << 8) & CMKIT_MPA_V2_IRD_ORD_MASK);
	if (o.p2p && !o.rtr)
		o.rtr = CMKIT_MPA_RTR_WRITE;
	if (o.p2p == CMKIT_MPA_P2P_REQUIRED)
		o.rev = 2;
	return o;
}

// A whole exchange between two offers: both sides come to the same verdict.
void Exchange(const std::vector<uint8_t> &buf)
{
	if (buf.size() < 8)
		return;
	cmkit_mpa_offer ini = OfferFrom(buf.data()), rsp = OfferFrom(buf.data() + 4);
	size_t pd_len = buf.size() - 8;
	if (pd_len > CMKIT_MPA_MAX_PD_LEN - CMKIT_MPA_IRD_ORD_LEN)
		pd_len = CMKIT_MPA_MAX_PD_LEN - CMKIT_MPA_IRD_ORD_LEN;
	const cmkit_u8 *pd = pd_len ? buf.data() + 8 : nullptr;

	for (cmkit_u8 rev = ini.rev; rev >= 1; rev--) {
		std::vector<uint8_t> req(CMKIT_MPA_MAX_FRAME);
		int n = cmkit_mpa_build_request(req.data(), req.size(), &ini, rev, pd,
						(cmkit_u16)pd_len);
		Require(n > 0);
		req.resize((size_t)n);
		cmkit_mpa_frame rq{};
		Require(cmkit_mpa_parse(req.data(), req.size(), CMKIT_MPA_REQUEST, &rq) == n);
		Require(rq.pdata_len == pd_len);
		cmkit_mpa_result rr{}, ir{};
		int reason = cmkit_mpa_respond(&rsp, &rq, &rr);
		Require(reason >= 0);
		std::vector<uint8_t> rep(CMKIT_MPA_MAX_FRAME);
		n = cmkit_mpa_build_reply(rep.data(), rep.size(), &rr, nullptr, 0);
		Require(n > 0);
		rep.resize((size_t)n);
		cmkit_mpa_frame rp{};
		Require(cmkit_mpa_parse(rep.data(), rep.size(), CMKIT_MPA_REPLY, &rp) == n);
		int rc = cmkit_mpa_initiate(&ini, rev, &rp, &ir);
		if (reason) {
			Require(rc == CMKIT_MPA_E_REJECTED && (int)ir.reason == reason);
			if (!cmkit_mpa_fallback(&ini, rev, &rp))
				return;
			Require(reason == CMKIT_MPA_REJ_REVISION && rev == 2);
			continue;	// try again in revision 1
		}
		Require(rc == 0 || (rc == CMKIT_MPA_E_P2P && !rr.p2p &&
				    ini.p2p == CMKIT_MPA_P2P_REQUIRED));
		if (rc == 0)
			Require(ir.p2p == rr.p2p && ir.rtr == rr.rtr && ir.crc == rr.crc &&
				ir.rev == rr.rev);
		// Revision 1 negotiates no IRD/ORD; otherwise neither side may
		// issue more Reads than the other takes.
		if (rc == 0 && rr.enhanced)
			Require(ir.ord <= rr.ird && rr.ord <= ir.ird);
		return;
	}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// Exact-size heap copy: ASan catches any read past the bytes received.
	std::vector<uint8_t> buf(data, data + size);
	Check(buf, CMKIT_MPA_REQUEST);
	Check(buf, CMKIT_MPA_REPLY);
	Decide(buf);
	Exchange(buf);
	return 0;
}
