// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// The pure parts of cmkit-peer mpa-connect (no sockets, so host tests can
// drive them, tests/peer_mpa_test.cpp): the MPA revision 2 request and the
// RTR message it sends, built by the shared layer (include/cmkit/mpa.h,
// mpa_fpdu.h); reading the reply as it arrives; and the JSON line of one
// connection.
#ifndef CMKIT_PEER_MPA_WIRE_H
#define CMKIT_PEER_MPA_WIRE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cmkit/mpa.h"
#include "cmkit/mpa_fpdu.h"
#include "options.h"

namespace cmkit_peer {

// The IRD and ORD every request advertises.
constexpr uint16_t kMpaIrd = 4;
constexpr uint16_t kMpaOrd = 4;

// The initiator's offer for @o: revision 2, no CRC asked, IRD and ORD 4;
// peer-to-peer (CMKIT_MPA_P2P_ON) with --rtr's type, or off for none.
cmkit_mpa_offer MpaOffer(const Options &o);

// The request for @o (its --pdata after the IRD/ORD): "MPA ID Req Frame",
// flags 0x10, revision 2, PD_Length, IRD word, ORD word, private data.
// False when the shared layer refuses (it never does for parsed options).
bool MpaRequest(const Options &o, std::vector<uint8_t> *out);

// The zero-length RTR message of type @rtr (one CMKIT_MPA_RTR_* bit), with
// its CRC when @crc, zeros in the CRC field otherwise.
bool MpaRtr(unsigned rtr, bool crc, std::vector<uint8_t> *out);

// Reading the reply as it arrives, never past its end: with @have bytes of
// it in @buf, returns 1 when the frame is whole (*f decoded), 0 when *want
// bytes are needed in all (the 20-byte header first, then the whole frame),
// or a negative CMKIT_MPA_E_* code when the bytes can never be a reply.
int MpaReadReply(const uint8_t *buf, size_t have, cmkit_mpa_frame *f, size_t *want);

// "write", "read", "send", or "none" for 0 (and anything else).
const char *RtrName(unsigned rtr);

// What one mpa-connect connection did, for its JSON line.
struct MpaConnOutcome {
	enum Result { kOk, kRejected, kError } result = kError;
	std::string error;		// kError: what failed; kRejected: the reason
	uint32_t n = 0;			// 1-based connection number
	uint16_t local_port = 0;	// 0 until connected
	bool replied = false;		// a whole reply frame was read
	uint8_t reply_flags = 0, reply_rev = 0;
	std::vector<uint8_t> reply_pdata;	// after the IRD/ORD
	bool decided = false;		// cmkit_mpa_initiate() accepted: @decision valid
	cmkit_mpa_result decision{};
	bool rtr_sent = false;
	// From the kernel's receive stamp of the reply's last bytes to the RTR
	// sent (CLOCK_REALTIME); below 0: not known (not stamped).
	double rtr_us = -1;
	int read_response = 0;		// Read RTR: 1 its response came, <0 bad, 0 none
	bool peer_closed = false;	// FIN or reset while holding
	bool peer_reset = false;
	uint64_t peer_bytes = 0;	// received while holding
	double held_ms = 0;		// from the RTR (or reply) to the close or hold's end
};

// The connection's JSON line (without a newline).
std::string MpaOutcomeJson(const MpaConnOutcome &c);

} // namespace cmkit_peer

#endif
