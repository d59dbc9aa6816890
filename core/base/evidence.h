#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace reach {

// Evidence Reach signs (issue 37; docs/security.md, "Evidence Reach signs"). What Reach
// measured on this machine (reach-verify's result, an integrate document, a benchmark check) is
// authenticated with a key of the user's, so that a reader can tell it from a file that only
// says the same: a stranger's, or one edited by hand. A signature is one member of the document:
//
//   "reach_signature": {"alg": "hmac-sha256", "key_id": "<16 hex>", "mac": "<64 hex>"}
//
// mac = HMAC-SHA256(key, canonicalEvidenceText(document)); key_id = the first 16 hex digits of
// the key's SHA-256 (it names the key, it does not reveal it). The key: 32 random bytes in
// evidenceKeyPath(), created on first use, mode 0600, in a folder only the user can write.

inline constexpr const char* kSignatureMember = "reach_signature";
inline constexpr const char* kSignatureAlgorithm = "hmac-sha256";

// $REACH_KEY_DIR, else $XDG_CONFIG_HOME/reach, else ~/.config/reach: the user's, never a
// project's or an output folder, and never the compile cache (a sandboxed C++ job may write
// the cache, so a key there would be readable by the candidate).
std::string evidenceKeyDir();
std::string evidenceKeyPath();  // <dir>/evidence.key

struct EvidenceKey {
    std::string bytes;  // 32 bytes
    std::string id;     // the first 16 hex digits of SHA-256(bytes)
};

// The user's key, created on first use (a key that appears meanwhile, another process's, is
// taken as it is). Throws InputError naming the folder or the file when it cannot be used: a
// folder others can write, a key file that is a link, not the user's, readable by others or not
// 32 bytes. Read once per process and path.
EvidenceKey userEvidenceKey();

// What a signature covers: the document without its "reach_signature" member, written by
// nlohmann's dump() (compact; object members in nlohmann's order, by the bytes of their names)
// after one round trip through Reach's JSON output (textescape.h's dumpJson writes a string
// that is not UTF-8 as \xNN text), so the signer and a reader of the printed file see the same
// text. Throws std::invalid_argument for a document that is not an object.
std::string canonicalEvidenceText(const nlohmann::json& document);

// Signs `document` (an object) with the user's key, replacing any signature it had. Returns ""
// when signed, else why not (the key cannot be used): the document is then left unsigned, a
// claim like any other, and the caller says why on stderr.
std::string signEvidence(nlohmann::json& document);

// How a reader takes one document.
struct Evidence {
    bool signedHere = false;  // a valid signature with this user's key
    std::string why;          // when not: why it is a claim
    std::string keyId;        // the key its signature names, when it names one

    // "verified here" (a verify result) or "measured here" (an integration run, a check), as
    // `here` says, else "claimed".
    std::string label(const std::string& here) const { return signedHere ? here : "claimed"; }
};

// Never throws: a document this key cannot vouch for is a claim, with why (no signature,
// another key, edited after it was signed, a signature of the wrong shape, no key to check it
// with).
Evidence checkEvidence(const nlohmann::json& document);

// {"evidence": label, "evidence_why": why or null}: how every reader's JSON says it.
nlohmann::json evidenceJson(const Evidence& evidence, const std::string& here);

}  // namespace reach
