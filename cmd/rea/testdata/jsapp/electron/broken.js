function ( {
