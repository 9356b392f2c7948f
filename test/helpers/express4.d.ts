// `express4` is Express 4 installed under another name (`npm:express@4`), so both majors run side by
// side; its API is the part of @types/express that the tests use.
declare module 'express4' {
  import express = require('express');
  export = express;
}
