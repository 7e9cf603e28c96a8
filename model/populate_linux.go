package model

import "syscall"

// populate makes allocWords map a table with its pages present
// (MAP_POPULATE): the kernel fills them in one call instead of one page
// fault per page as the table is first written. A shard grows while its
// owner inserts; with two workers, page faults in one worker's growth
// cost several times what they cost a single worker (the other worker's
// mapping and unmapping contend with them), and made growth most of the
// insert phase's time (docs/engine.md, "Two workers").
const populate = syscall.MAP_POPULATE
