#!/usr/bin/env node
// `nowhook-reminder`: runs the hook runtime binary of this system's platform
// package (lib/launch.js says how). The hooks nowhook writes run it when it
// is on PATH.
"use strict";
require("../lib/launch.js").run("nowhook-reminder");
