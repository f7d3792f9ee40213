// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer: a user-space rdma_cm peer for cmkit's handlers, on rdma-core.
// `cmkit-peer --help` and `cmkit-peer <command> --help` say what it does;
// docs/peer.md has the JSON lines and exit statuses.
#include <cstdio>

#include "commands.h"

int main(int argc, char **argv)
{
	using namespace cmkit_peer;
	Options o;
	ParseResult r = ParseArgs(argc, argv, &o);
	if (r.status != ParseResult::kRun) {
		fputs(r.text.c_str(), r.status == ParseResult::kHelp ? stdout : stderr);
		return r.ExitCode();
	}
	switch (o.cmd) {
	case Command::kServe:
		return Serve(o);
	case Command::kConnect:
		return Connect(o);
	case Command::kSrpLogin:
		return SrpLogin(o);
	case Command::kCall:
		return Call(o);
	case Command::kMpaConnect:
		return MpaConnect(o);
	case Command::kNone:
		break;
	}
	return kExitUsage;
}
