// Entry of the benchmark bundle: real npm code only.
import React from 'react';
import { createRoot } from 'react-dom/client';
import _ from 'lodash';

createRoot(document.getElementById('root')).render(React.createElement('pre', null, _.join(_.range(10), ',')));
