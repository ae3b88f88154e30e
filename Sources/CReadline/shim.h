// GNU readline as GiftKeeperREPL sees it. Only GiftKeeperREPL imports this module.
// readline.h needs FILE from <stdio.h> declared before it.
#ifndef GIFTKEEPER_CREADLINE_SHIM_H
#define GIFTKEEPER_CREADLINE_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <readline/readline.h>
#include <readline/history.h>

#endif
