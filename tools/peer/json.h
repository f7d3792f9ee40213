// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// One JSON object, built member by member, printed as one line.
#ifndef CMKIT_PEER_JSON_H
#define CMKIT_PEER_JSON_H

#include <cinttypes>
#include <cstdio>
#include <string>

namespace cmkit_peer {

class Json {
public:
	Json &Str(const char *key, const std::string &v)
	{
		Key(key);
		s_ += '"';
		for (char c : v) {
			if (c == '"' || c == '\\') {
				s_ += '\\';
				s_ += c;
			} else if (static_cast<unsigned char>(c) < 0x20) {
				char esc[8];
				snprintf(esc, sizeof(esc), "\\u%04x", c);
				s_ += esc;
			} else {
				s_ += c;
			}
		}
		s_ += '"';
		return *this;
	}
	Json &Int(const char *key, int64_t v) { return Raw(key, std::to_string(v)); }
	Json &Uint(const char *key, uint64_t v) { return Raw(key, std::to_string(v)); }
	Json &Bool(const char *key, bool v) { return Raw(key, v ? "true" : "false"); }
	Json &Us(const char *key, double v)	// microseconds, 0.1 resolution
	{
		char buf[32];
		snprintf(buf, sizeof(buf), "%.1f", v);
		return Raw(key, buf);
	}
	Json &Obj(const char *key, const Json &v) { return Raw(key, v.str()); }
	Json &Raw(const char *key, const std::string &json)
	{
		Key(key);
		s_ += json;
		return *this;
	}
	std::string str() const { return "{" + s_ + "}"; }
	// Print on stdout as one line, flushed (scripts read it as it comes).
	void Print() const
	{
		printf("%s\n", str().c_str());
		fflush(stdout);
	}

private:
	void Key(const char *key)
	{
		if (!s_.empty())
			s_ += ',';
		s_ += '"';
		s_ += key;
		s_ += "\":";
	}
	std::string s_;
};

} // namespace cmkit_peer

#endif
