// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's subcommands; each returns the process's exit status.
#ifndef CMKIT_PEER_COMMANDS_H
#define CMKIT_PEER_COMMANDS_H

#include "options.h"
#include "rdma.h"

namespace cmkit_peer {

int Serve(const Options &o);	// cm_cmds.cpp
int Connect(const Options &o);	// cm_cmds.cpp
int SrpLogin(const Options &o);	// cm_cmds.cpp
int Call(const Options &o);	// rpc_call.cpp
int MpaConnect(const Options &o);	// mpa_connect.cpp: plain TCP, no rdma-core

// How resolving the address and route of an active side ended.
enum class Resolved { kRoute, kFailed, kTimeout, kError };
// Resolve @o's address and route on @conn; *last is the last CM event
// (ADDR_ERROR with the errno as status when rdma_resolve_addr() failed).
Resolved ResolveRoute(rdma_event_channel *ch, Conn *conn, const Options &o, const char *role,
		      Event *last);

// Connection parameters of every connect and accept: one RDMA read in
// each direction, the longest retries, and @pdata as private data.
rdma_conn_param ConnParam(const std::vector<uint8_t> &pdata);

inline int TimeoutMs(const Options &o)
{
	return static_cast<int>(o.timeout_s * 1000);
}

} // namespace cmkit_peer

#endif
