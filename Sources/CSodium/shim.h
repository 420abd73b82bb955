// libsodium: Argon2id password hashes (crypto_pwhash_str), random tokens and constant-time
// comparison for editor accounts. Only the Accounts module imports this.
#include <sodium.h>
