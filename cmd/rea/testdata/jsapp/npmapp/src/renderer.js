import React from 'react';
import { createRoot } from 'react-dom/client';
import chunk from 'lodash/chunk';
import debounce from 'lodash/debounce';

function App() {
  const [rows, setRows] = React.useState([]);
  React.useEffect(() => {
    window.items.sort([{ name: 'b' }, { name: 'a' }]).then((sorted) => setRows(chunk(sorted, 2)));
  }, []);
  const save = debounce(() => localStorage.setItem('rows', JSON.stringify(rows)), 100);
  save();
  return React.createElement('pre', null, JSON.stringify(rows));
}

fetch('https://updates.example.com/v1/check');
createRoot(document.getElementById('root')).render(React.createElement(App));
