# Sourced by the benchmarks (bench.sh, bench-sync.sh):
#   add_lines N              prints N `add` lines with titles like a person's, from the
#                            vocabulary of make-document.sh ("Warm scarf", "Wooden board game"):
#                            sixteen recipients, fifteen adjectives and twenty things, picked by
#                            a fixed pseudo-random sequence, so a run is the same every time;
#                            each with a price and a note of about a hundred characters
#   add_script N PASSWORD    prints a shell script that sets up a journal, adds N presents
#                            (add_lines), then quits
add_lines() {
    local recipients=("Mum" "Dad" "Grandma Rose" "Grandpa Joe" "Aunt Léa" "Uncle Tomás" "Sophie" "Max"
        "Emma" "Noah" "Mrs Patel" "Oliver" "Chloé" "Lucas" "Ada" "Ben")
    local adjectives=("Blue" "Wooden" "Small" "Hand-made" "Vintage" "Warm" "Red" "Leather" "Silver" "Green"
        "Illustrated" "Cosy" "Tiny" "Large" "Striped")
    local things=("scarf" "tea set" "puzzle of 1000 pieces" "cookbook" "notebook" "board game" "watering can"
        "headphones" "kite" "photo frame" "candle" "wallet" "bird feeder" "umbrella" "mug" "novel" "Lego set"
        "jigsaw" "plant pot" "fountain pen")
    local note="Wrapped in blue paper, bought at the market on a Saturday morning; keep the receipt in the kitchen drawer."
    local seed=12 i
    next() { seed=$(((seed * 1103515245 + 12345) % 2147483648)); }
    for ((i = 1; i <= $1; i++)); do
        next; local recipient=${recipients[seed / 65536 % 16]}
        next; local adjective=${adjectives[seed / 65536 % 15]}
        next; local thing=${things[seed / 65536 % 20]}
        printf 'add "%s" "%s %s" --price %d.50 --notes "%s"\n' "$recipient" "$adjective" "$thing" $((i % 90)) "$note"
    done
}

add_script() {
    printf 'setup Bench --kdf interactive\n%s\n%s\n' "$2" "$2"
    add_lines "$1"
    printf 'quit\n'
}
