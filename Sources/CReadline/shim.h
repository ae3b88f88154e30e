// GNU readline as GiftKeeperREPL sees it. Only GiftKeeperREPL imports this module.
// readline.h needs FILE from <stdio.h> declared before it.
//
// Swift 6 strict concurrency cannot touch C global variables, so readline's
// settings and hooks are reached through the static inline accessors below.
#ifndef GIFTKEEPER_CREADLINE_SHIM_H
#define GIFTKEEPER_CREADLINE_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <readline/readline.h>
#include <readline/history.h>
#include <sys/prctl.h>

/// Installs the attempted-completion hook (`rl_attempted_completion_function`).
static inline void giftkeeper_rl_set_attempted_completion(rl_completion_func_t *function) {
    rl_attempted_completion_function = function;
}

/// `rl_attempted_completion_over = 1`: never fall back to filename completion.
static inline void giftkeeper_rl_set_attempted_completion_over(int value) {
    rl_attempted_completion_over = value;
}

/// `rl_completion_append_character`.
static inline void giftkeeper_rl_set_completion_append_character(int character) {
    rl_completion_append_character = character;
}

/// The `completion-ignore-case` setting: `mum` completes to `Mum`.
static inline void giftkeeper_rl_set_completion_ignore_case(int value) {
    rl_variable_bind("completion-ignore-case", value ? "on" : "off");
}

/// `rl_sort_completion_matches`: 0 keeps the order the REPL gives (p2 before p10).
static inline void giftkeeper_rl_set_sort_completion_matches(int value) {
    rl_sort_completion_matches = value;
}

/// The quote character readline found before the word being completed (0 if none).
static inline int giftkeeper_rl_completion_quote_character(void) {
    return rl_completion_quote_character;
}

/// Words break on whitespace only, and `'`/`"` open quoted words, like the REPL's tokenizer.
static inline void giftkeeper_rl_set_word_syntax(void) {
    rl_completer_word_break_characters = " \t\n";
    rl_basic_word_break_characters = " \t\n";
    rl_completer_quote_characters = "\"'";
}

/// An answer to a prompt is one word from the start of the line: nothing breaks it, and
/// quotes are ordinary characters in it.
static inline void giftkeeper_rl_set_whole_line_word(void) {
    rl_completer_word_break_characters = "";
    rl_completer_quote_characters = "";
}

/// Writes out what readline buffered for the terminal (`fflush(rl_outstream)`), before the
/// REPL writes to it directly.
static inline void giftkeeper_rl_flush_output(void) {
    fflush(rl_outstream != NULL ? rl_outstream : stdout);
}

/// Whether the character at `index` is escaped by a backslash (an odd run of them), for
/// `rl_char_is_quoted_p`: then `Uncle\ B` is one word to complete, as the REPL reads it.
static int giftkeeper_char_is_backslash_quoted(char *text, int index) {
    int backslashes = 0;
    while (index - backslashes - 1 >= 0 && text[index - backslashes - 1] == '\\') {
        backslashes++;
    }
    return backslashes % 2;
}

static inline void giftkeeper_rl_set_backslash_quoting(void) {
    rl_char_is_quoted_p = giftkeeper_char_is_backslash_quoted;
}

/// Empties the in-memory history, zeroing each line's bytes before readline frees them
/// (titles and names were typed there).
static inline void giftkeeper_clear_history_wiping(void) {
    HIST_ENTRY **entries = history_list();
    for (int i = 0; entries != NULL && entries[i] != NULL; i++) {
        if (entries[i]->line != NULL) {
            explicit_bzero(entries[i]->line, strlen(entries[i]->line));
        }
    }
    clear_history();
}

/// `rl_catch_signals` / `rl_catch_sigwinch`: 0 lets the REPL handle SIGINT and SIGWINCH itself.
static inline void giftkeeper_rl_set_catch_signals(int signals, int sigwinch) {
    rl_catch_signals = signals;
    rl_catch_sigwinch = sigwinch;
}

/// The application name for conditional parsing of ~/.inputrc (`$if GiftKeeper`).
/// A C literal: readline keeps the pointer.
static inline void giftkeeper_rl_set_readline_name(void) {
    rl_readline_name = "GiftKeeper";
}

/// The line typed so far (`rl_line_buffer`, `rl_end` bytes; not NUL-terminated at rl_point).
static inline const char *giftkeeper_rl_line_buffer(void) {
    return rl_line_buffer;
}

static inline int giftkeeper_rl_point(void) {
    return rl_point;
}

static inline int giftkeeper_rl_end(void) {
    return rl_end;
}

/// `prctl(PR_SET_DUMPABLE, 0)`: prctl is variadic, which Swift cannot call.
/// (Process hygiene, not readline: it lives here because this is the REPL's only C module.)
static inline int giftkeeper_prctl_set_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

#endif
