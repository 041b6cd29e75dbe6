#!/usr/bin/env node
// `nowhook`: runs the nowhook binary of this system's platform package
// (lib/launch.js says how).
"use strict";
require("../lib/launch.js").run("nowhook");
